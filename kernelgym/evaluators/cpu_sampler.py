"""Where a process's CPU goes, and how long its threads wait for the interpreter lock (Linux; for measuring only).

:class:`CpuSampler` wakes every ``interval_s``. At each wake-up, holding the interpreter lock throughout (no call in
a sample releases it), it reads every Python thread's CPU clock (``pthread_getcpuclockid``) and its stack
(``sys._current_frames``), and charges the CPU seconds the thread used since the last sample to that stack: the
innermost function as *self*, every distinct function on the stack as *inclusive*. So the profile is in CPU seconds,
not sample counts; a thread blocked on a lock, a pipe or the interpreter lock uses no CPU and is charged nothing.
Work done between two samples is charged to where the thread stands at the second: a thread that works, then
blocks (a pipe's poll, a lock) before the next sample has that work charged to the blocking call. Inclusive figures
of the callers above both are right; self figures of blocking calls are inflated by the work just before them.

The sampler also measures the interpreter lock's latency: how long after its timed wait ended each wake-up got the
lock back (``gil_wait_ms``, median, p95 and max). Every Python thread waits about that long whenever it gives the
lock up (each blocking call), so it is the cost the process's Python work imposes on each of its threads.

Per thread name (numbers dropped, so one pool's threads add up) it reports the CPU seconds used in between: for
Python threads what the samples charged them; for threads Python did not start (CUDA's, Ray's, torch's), named
``native:<kernel name>``, the kernel's account in ``/proc/self/task`` at :meth:`start` and :meth:`stop`.
"""

from __future__ import annotations

import collections
import os
import re
import statistics
import sys
import threading
import time

from kernelgym.judge.process import name_and_cpu

_TASKS = "/proc/self/task"


def kernel_threads() -> dict[int, tuple[str, float]]:
    """``{native thread id: (kernel name, CPU seconds so far)}`` for every thread of this process (from /proc)."""
    out = {}
    for name in os.listdir(_TASKS):
        stat = name_and_cpu(f"{_TASKS}/{name}/stat")
        if stat is not None:  # else the thread ended between the listing and the read
            out[int(name)] = stat
    return out


def group_name(name: str) -> str:
    """A thread name with its numbers replaced by ``N``, so the threads of one pool fall into one group."""
    return re.sub(r"\d+", "N", name)


def frame_key(code) -> str:
    """``path:function`` of a code object, the path from its ``kernelgym/``, ``site-packages/`` or ``lib/python``
    part on (the whole path otherwise)."""
    path = code.co_filename
    for marker in ("/kernelgym/", "/site-packages/", "/lib/python"):
        if marker in path:
            return f"{path[path.index(marker) + 1:]}:{code.co_name}"
    return f"{path}:{code.co_name}"


def _thread_cpu(ident: int) -> float | None:
    try:
        return time.clock_gettime(time.pthread_getcpuclockid(ident))
    except OSError:
        return None


def _rounded(counter: collections.Counter, top: int) -> list[list]:
    return [[key, round(value, 3)] for key, value in counter.most_common(top)]


class CpuSampler:
    """Samples this process's Python threads every ``interval_s`` between :meth:`start` and :meth:`stop`."""

    def __init__(self, interval_s: float = 0.01, top: int = 40):
        if interval_s <= 0:
            raise ValueError(f"interval_s must be positive, got {interval_s}")
        self.interval_s = interval_s
        self.top = top
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._reset()

    def _reset(self) -> None:
        self.samples = 0
        self.self_cpu: collections.Counter = collections.Counter()
        self.inclusive_cpu: collections.Counter = collections.Counter()
        self.gil_waits: list[float] = []
        #: (ident, native id) -> the thread's CPU clock at the last sample (an ended thread's ident is reused)
        self._last_cpu: dict[tuple, float] = {}
        self._kernel_start: dict[int, tuple[str, float]] = {}
        self._names: dict[int, str] = {}  # native id -> Python thread name, for every thread seen
        self._python_cpu: collections.Counter = collections.Counter()  # native id -> CPU seconds charged
        self._native_id = 0  # the sampler thread's
        self._process_cpu_start = 0.0
        self._wall_start = 0.0
        self._sampler_cpu = 0.0

    @property
    def running(self) -> bool:
        return self._thread is not None

    def start(self) -> None:
        """Begin sampling (from zero). Raises ``RuntimeError`` if already running."""
        if self._thread is not None:
            raise RuntimeError("the sampler is already running")
        self._reset()
        self._stop.clear()
        # the process's clock first: CPU a thread uses after its own clock is read is in both figures
        self._process_cpu_start, self._wall_start = time.process_time(), time.monotonic()
        self._kernel_start = kernel_threads()
        for thread in threading.enumerate():
            cpu = _thread_cpu(thread.ident)
            if cpu is not None:
                self._last_cpu[thread.ident, thread.native_id] = cpu
        self._thread = threading.Thread(target=self._loop, name="kernelgym-cpu-sampler", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        self._native_id = threading.get_native_id()
        cpu0 = time.thread_time()
        while True:
            asleep = time.monotonic()
            if self._stop.wait(self.interval_s):
                break
            self.gil_waits.append(max(0.0, time.monotonic() - asleep - self.interval_s))
            self._sample()
        self._sampler_cpu = time.thread_time() - cpu0

    def _sample(self) -> None:
        """One sample; makes no call that releases the interpreter lock, so every stack is where its thread stood."""
        me = threading.get_ident()
        frames = sys._current_frames()
        for thread in threading.enumerate():
            if thread.ident == me or thread.ident not in frames:
                continue
            self._names[thread.native_id] = thread.name
            cpu = _thread_cpu(thread.ident)
            if cpu is None:
                continue
            key = thread.ident, thread.native_id
            used = cpu - self._last_cpu.get(key, 0.0)  # a thread born since the last sample: from zero
            self._last_cpu[key] = cpu
            if used <= 0:
                continue
            self._python_cpu[thread.native_id] += used
            frame = frames[thread.ident]
            self.self_cpu[frame_key(frame.f_code)] += used
            seen = set()
            while frame is not None:
                key = frame_key(frame.f_code)
                if key not in seen:
                    seen.add(key)
                    self.inclusive_cpu[key] += used
                frame = frame.f_back
        self.samples += 1

    def stop(self) -> dict:
        """Stop sampling and return the profile (JSON-ready): ``samples``, ``interval_s``, ``wall_s``,
        ``process_cpu_s`` (all threads, ``time.process_time``, not ``os.times``, which counts 10 ms ticks),
        ``sampled_cpu_s`` (what the samples charged to Python stacks), ``sampler_cpu_s`` (the sampler's own
        thread), ``thread_cpu_s`` (per thread-name group: Python threads by what the samples charged them, ended
        ones included; other threads by the kernel's account of those alive at the end, those born since
        :meth:`start` counted whole), ``gil_wait_ms`` (``p50``, ``p95``, ``max`` of the wake-ups' waits), ``self``
        and ``inclusive`` (``[function, CPU seconds]``, the ``top`` largest). Raises ``RuntimeError`` if not
        running."""
        if self._thread is None:
            raise RuntimeError("the sampler is not running")
        self._stop.set()
        self._thread.join()
        self._thread = None
        process_cpu = time.process_time() - self._process_cpu_start
        per_group: collections.Counter = collections.Counter()
        for tid, used in self._python_cpu.items():  # Python threads: what the samples charged, ended ones too
            per_group[group_name(self._names[tid])] += used
        for tid, (comm, cpu) in kernel_threads().items():  # the others: the kernel's account
            if tid in self._names or tid == self._native_id:
                continue
            start = self._kernel_start.get(tid)
            per_group[group_name(f"native:{comm}")] += cpu - start[1] if start is not None and start[0] == comm \
                else cpu  # born since: all of it
        waits = sorted(self.gil_waits)
        return {"samples": self.samples, "interval_s": self.interval_s,
                "wall_s": round(time.monotonic() - self._wall_start, 3),
                "process_cpu_s": round(process_cpu, 3),
                "sampled_cpu_s": round(sum(self.self_cpu.values()), 3),
                "sampler_cpu_s": round(self._sampler_cpu, 3),
                "thread_cpu_s": {k: round(v, 3) for k, v in per_group.most_common() if v > 0},
                "gil_wait_ms": {"p50": round(1e3 * statistics.median(waits), 3) if waits else None,
                                "p95": round(1e3 * waits[int(0.95 * (len(waits) - 1))], 3) if waits else None,
                                "max": round(1e3 * waits[-1], 3) if waits else None},
                "self": _rounded(self.self_cpu, self.top), "inclusive": _rounded(self.inclusive_cpu, self.top)}
