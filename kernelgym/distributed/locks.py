"""A writer-preferring readers-writer lock: many evaluations may share a GPU to compile and check, one times alone."""

from __future__ import annotations

import contextlib
import threading


class SharedExclusiveLock:
    """``shared()`` may be held by many threads at once; ``exclusive()`` by one thread with no sharer.

    A waiting exclusive holder blocks new sharers (writer preference), so timing is never starved by a stream of
    compilations.
    """

    def __init__(self):
        self._cond = threading.Condition()
        self._sharers = 0
        self._writer = False
        self._writers_waiting = 0

    @contextlib.contextmanager
    def shared(self):
        with self._cond:
            while self._writer or self._writers_waiting:
                self._cond.wait()
            self._sharers += 1
        try:
            yield
        finally:
            with self._cond:
                self._sharers -= 1
                self._cond.notify_all()

    @contextlib.contextmanager
    def exclusive(self):
        with self._cond:
            self._writers_waiting += 1
            while self._writer or self._sharers:
                self._cond.wait()
            self._writers_waiting -= 1
            self._writer = True
        try:
            yield
        finally:
            with self._cond:
                self._writer = False
                self._cond.notify_all()


class NoLock:
    """Stand-in when evaluations never overlap (a single local Judge)."""

    @contextlib.contextmanager
    def shared(self):
        yield

    @contextlib.contextmanager
    def exclusive(self):
        yield
