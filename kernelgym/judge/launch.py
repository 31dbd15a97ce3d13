"""Starting judge workers, optionally one evaluation ahead.

Every candidate runs in a fresh worker process that is used for exactly one evaluation and then killed with its
whole process group. Starting one costs the Python interpreter plus ``import torch, triton`` (about 2 s on the CPU
CI machine; the GPU machine's 4.9 s fresh-process figure also includes CUDA initialisation, which always happens
after the request). With ``prestart`` the launcher keeps one *spare* worker started ahead of time: it has imported
torch and Triton and waits, blocked on its stdin, for its request. It has run no candidate code, holds no GPU
context, and is started in its own sandbox namespaces like any worker, so taking it instead of starting a worker
changes nothing about isolation; it only moves the start-up off the critical path. A spare that died while waiting
is discarded and a worker started on the spot; a spare whose judge process dies reads end-of-file on its stdin and
exits.

Spares are kept only where the workers run in their own namespaces. Without them, the spare for the next
candidate would run beside the current one as the same user, in the same PID namespace, and a candidate that got
past the static guards could tamper with it; there the launcher starts every worker on demand instead.

Settings that depend on the candidate (its build directory, the CUDA arch list) are not in the process
environment at start; they travel in the request and the worker applies them before it loads anything
(see :func:`kernelgym.judge.worker.main`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from kernelgym.judge import sandbox
from kernelgym.judge.process import kill_group


@dataclass
class StartedWorker:
    """A worker process, its result channel (the read end), its scratch directory and log."""

    proc: subprocess.Popen
    read_fd: int
    scratch: Path
    log_path: Path
    sandboxed: bool
    killed: bool = False

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        """Kill the worker's whole process group (once) and close the channel; the scratch directory stays."""
        if self.killed:
            return
        self.killed = True
        kill_group(self.proc)
        try:
            os.close(self.read_fd)
        except OSError:
            pass

    def discard(self) -> None:
        """:meth:`kill`, then delete the scratch directory."""
        self.kill()
        shutil.rmtree(self.scratch, ignore_errors=True)


class WorkerLauncher:
    """Starts workers (``python -m kernelgym.judge.worker RESULT_FD``) for one judge, one evaluation at a time.

    Args:
        env_for: the process environment for a worker whose scratch directory is the argument.
        use_sandbox: start workers inside PID/network/mount namespaces where the OS allows it.
        prestart: keep one spare worker started ahead when workers are sandboxed (see the module docstring).

    :meth:`take` hands over a worker the caller owns from then on (and must :meth:`StartedWorker.discard`);
    :meth:`close` kills the spare. Not thread-safe, like the judge that owns it.
    """

    def __init__(self, env_for: Callable[[Path], dict[str, str]], use_sandbox: bool = True, prestart: bool = False):
        self.env_for = env_for
        self.use_sandbox = use_sandbox
        self.prestart = bool(prestart and use_sandbox and sandbox.namespaces_available())
        self._spare: StartedWorker | None = None
        self.stats = {"started": 0, "spares_used": 0, "spares_dead": 0}

    def take(self) -> StartedWorker:
        """A fresh worker that has run nothing yet; starts the next spare when prestarting."""
        worker, self._spare = self._spare, None
        if worker is not None and not worker.alive():
            self.stats["spares_dead"] += 1
            worker.discard()
            worker = None
        if worker is None:
            worker = self.start()
        else:
            self.stats["spares_used"] += 1
        if self.prestart:
            self._spare = self.start()
        return worker

    def start(self) -> StartedWorker:
        scratch = Path(tempfile.mkdtemp(prefix="kernelgym-run-"))
        read_fd, write_fd = os.pipe()
        log_path = scratch / "log.txt"
        try:
            argv, sandboxed = sandbox.wrap([sys.executable, "-m", "kernelgym.judge.worker", str(write_fd)],
                                           self.use_sandbox)
            with open(log_path, "wb") as log:
                proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT,
                                        pass_fds=(write_fd,), cwd=scratch, env=self.env_for(scratch),
                                        start_new_session=True)
        except BaseException:
            os.close(read_fd)
            shutil.rmtree(scratch, ignore_errors=True)
            raise
        finally:
            os.close(write_fd)
        self.stats["started"] += 1
        return StartedWorker(proc, read_fd, scratch, log_path, sandboxed)

    def idle_pids(self) -> list[int]:
        """Process-group ids of the idle spare (it has run no candidate code), for leftover accounting."""
        return [self._spare.proc.pid] if self._spare is not None else []

    def close(self) -> None:
        spare, self._spare = self._spare, None
        if spare is not None:
            spare.discard()
