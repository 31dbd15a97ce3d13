"""Starting judge workers, optionally one evaluation ahead.

Every candidate runs in a fresh worker process that is used for exactly one evaluation and then killed with its
whole process group. Starting one costs the Python interpreter plus ``import torch, triton`` (about 1.2 s on the CPU
CI machine; the GPU machine's 4.9 s fresh-process figure also includes CUDA initialisation, which always happens
before the request unless the spare warms it). With ``prestart`` the launcher keeps *spare* workers (one, or as many as
asked) started ahead of time: each has imported torch and Triton, warmed the profiler and, when the judge's device is a
GPU (``KERNELGYM_WARM_DEVICE`` in its environment), created its CUDA context on that device and warmed the profiler's
GPU side, and waits, blocked on its stdin, for its request. It has run no candidate code and is started in its own
sandbox namespaces like any worker, so taking it instead of starting a worker changes nothing about isolation; it only
moves the start-up off the critical path. On the H200 a worker's start-up is several seconds, several times one small
task's evaluation, so one spare is not ready in time when evaluations follow each other: keep two or three. A spare
that died while waiting is discarded and a worker started on the spot; a spare whose judge process dies reads
end-of-file on its stdin and exits.

Spares are kept only where the workers run in the sandbox (:mod:`kernelgym.judge.sandbox`). Without it, the spare
for the next candidate would run beside the current one as the same user, in the same PID namespace, and a
candidate that got past the static guards could tamper with it; there the launcher starts every worker on demand
instead. A worker that needs a writable path of its own (the build folder of a CUDA candidate's source) is always
started on demand, with that path bound: a spare's view of the file system is fixed when it starts.

Each worker gets two folders the runner made and the worker may write: its scratch folder (its working directory,
``HOME`` and ``TMPDIR``) and a transfer folder in ``/dev/shm`` for output tensors (:mod:`kernelgym.judge.transfer`).
The runner keeps its own descriptor of the worker's log file, so whatever the worker does to the path (a FIFO, a
symlink) cannot change what the runner reads or make it block.

Settings that depend on the candidate (its build directory, the CUDA arch list) are not in the process
environment at start; they travel in the request and the worker applies them before it loads anything
(see :func:`kernelgym.judge.worker.main`).
"""

from __future__ import annotations

import collections
import concurrent.futures
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from kernelgym.judge import sandbox
from kernelgym.judge.process import LOG_TAIL_CHARS, descendants, kill_group, signal_tree, tail_fd

SHM = Path("/dev/shm")
BOOTSTRAP = str(Path(__file__).resolve().parent / "bootstrap.py")


#: spares each judge of a pool keeps (:class:`~kernelgym.evaluators.local.ThreadJudges`): a pool's judges evaluate
#: back to back, and on the H200 a worker's start-up (CUDA context included) outlasts one small task's evaluation
POOL_SPARES = 2

#: how long a timed-out worker gets to dump its stacks (polled; returns as soon as the candidate's line is there)
STUCK_DUMP_WAIT_S = 3.0


#: the one thread of this process that starts workers. bwrap's ``--die-with-parent`` (``PR_SET_PDEATHSIG``) fires
#: when the *thread* that started the sandbox exits, not the process: a spare started from a short-lived thread (an
#: evaluator's pool thread, a caller's own thread) was killed under the evaluation that later took it. This thread
#: lives as long as the process, so a worker still dies with its runner and only with it. A forked child (a
#: trainer's data-loader, a multiprocessing pool) gets a spawner of its own: the parent's thread does not exist there.
_SPAWNER: concurrent.futures.ThreadPoolExecutor


def _new_spawner() -> None:
    global _SPAWNER
    _SPAWNER = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="kernelgym-spawn")


_new_spawner()
os.register_at_fork(after_in_child=_new_spawner)


def is_worker_interpreter(pid: int) -> bool:
    """Whether ``pid`` is a worker's Python interpreter (running the bootstrap as its script), read from the
    runner's own ``/proc``. bwrap's processes carry the bootstrap among their arguments too, but not as ``argv[1]``."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().split(b"\0")[1:2] == [BOOTSTRAP.encode()]
    except OSError:
        return False


def spawn(argv: list[str], **popen_kwargs) -> subprocess.Popen:
    """``subprocess.Popen(argv, **popen_kwargs)``, run on the process's spawning thread (see :data:`_SPAWNER`)."""
    return _SPAWNER.submit(subprocess.Popen, argv, **popen_kwargs).result()


@dataclass
class StartedWorker:
    """A worker process, its result channel (the read end), its scratch directory and log."""

    proc: subprocess.Popen
    read_fd: int
    scratch: Path
    xfer: Path
    log_fd: int
    sandboxed: bool
    sock: socket.socket | None = None  # the runner's end of the fd socket (device handover), when there is one
    killed: bool = False
    aborted: bool = False  # :meth:`abort` killed it: its evaluation was abandoned by the caller
    _kill_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        """Kill the worker's whole process group (once) and close the channel; the scratch directory stays."""
        with self._kill_lock:
            if self.killed:
                return
            self.killed = True
            kill_group(self.proc)
        try:
            os.close(self.read_fd)
        except OSError:
            pass
        if self.sock is not None:
            self.sock.close()

    def abort(self) -> None:
        """From any thread: ``SIGKILL`` every process of the worker now, and mark it :attr:`aborted`. Nothing is
        reaped or closed here (the thread that owns the worker reads end-of-file and then calls :meth:`kill`), and
        nothing is sent once :meth:`kill` has run, so a reaped process's id is never signalled."""
        with self._kill_lock:
            if self.killed or self.proc.returncode is not None:
                return
            self.aborted = True
            signal_tree(self.proc.pid, signal.SIGKILL)
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def freeze(self, frozen: bool) -> None:
        """Stop (``SIGSTOP``) or resume (``SIGCONT``) every process of the worker: the sandbox process and all its
        descendants, whatever process group they put themselves in."""
        if not self.killed:
            signal_tree(self.proc.pid, signal.SIGSTOP if frozen else signal.SIGCONT)

    def stuck_line(self) -> int | None:
        """The line of the candidate's file its code is running now, or ``None``: the worker dumps its threads'
        stacks into its log on ``SIGUSR1`` (:mod:`faulthandler`), read here through the runner's descriptor for the
        innermost frame in ``candidate.py``. Used when a stage runs out of time, just before the worker is killed."""
        if self.log_fd < 0:
            return None
        before = os.fstat(self.log_fd).st_size
        for pid in descendants(self.proc.pid):
            # the interpreter only: SIGUSR1 kills bwrap, and with it the worker before it could dump
            if is_worker_interpreter(pid):
                try:
                    os.kill(pid, signal.SIGUSR1)
                except OSError:
                    pass
        lines: list[str] = []
        waited_until = time.monotonic() + STUCK_DUMP_WAIT_S  # a loaded machine may schedule the dump late
        while not lines and time.monotonic() < waited_until:
            time.sleep(0.05)
            grown = os.fstat(self.log_fd).st_size - before
            dump = tail_fd(self.log_fd, min(max(grown, 0), 64_000)) if grown > 0 else ""
            lines = re.findall(r'File "[^"]*candidate\.py", line (\d+)', dump)
        return int(lines[0]) if lines else None  # faulthandler prints the innermost frame first

    def log_tail(self, chars: int = LOG_TAIL_CHARS) -> str:
        """The end of what the worker printed, read through the runner's own descriptor."""
        return tail_fd(self.log_fd, chars)

    def discard(self) -> None:
        """:meth:`kill`, then delete the scratch and transfer folders and close the log."""
        self.kill()
        shutil.rmtree(self.scratch, ignore_errors=True)
        shutil.rmtree(self.xfer, ignore_errors=True)
        if self.log_fd >= 0:
            os.close(self.log_fd)
            self.log_fd = -1


class WorkerLauncher:
    """Starts workers (``python -m kernelgym.judge.worker RESULT_FD``) for one judge, one evaluation at a time.

    Args:
        env_for: the process environment for a worker whose scratch directory is the argument.
        sandbox_mode: ``"bwrap"`` (the sandbox; :class:`~kernelgym.judge.sandbox.SandboxUnavailable` here when it
            cannot run) or ``"unsafe"`` (plain child processes).
        prestart: how many spare workers to keep started ahead when workers are sandboxed (``True`` is one; see the
            module docstring).
        fd_socket: give every worker a Unix socket on which the runner sends it file descriptors (the GPU output
            handover of :mod:`kernelgym.judge.device_transfer`); the worker gets its end's number as its second
            argument. The runner's end never reads and never blocks.
        hidden: folders no worker may see although a bound folder covers them, besides the runner's home and
            working folder (:func:`kernelgym.judge.sandbox.hidden_paths`): the judge's cache.

    :meth:`take` hands over a worker the caller owns from then on (and must :meth:`StartedWorker.discard`);
    :meth:`close` kills the spares. Not thread-safe, like the judge that owns it.
    """

    def __init__(self, env_for: Callable[[Path], dict[str, str]], sandbox_mode: str = "bwrap",
                 prestart: bool | int = False, fd_socket: bool = False, hidden: tuple = ()):
        sandbox.require(sandbox_mode)
        if not isinstance(prestart, int) or prestart < 0:  # bool is an int: True is one spare
            raise ValueError(f"prestart must be a bool or a count of spare workers >= 0, not {prestart!r}")
        self.env_for = env_for
        self.sandboxed = sandbox_mode == "bwrap"
        self.fd_socket = fd_socket
        self.hidden = tuple(hidden)
        self.spares_wanted = int(prestart) if self.sandboxed else 0
        self._spares: collections.deque[StartedWorker] = collections.deque()
        self.stats = {"started": 0, "spares_used": 0, "spares_dead": 0}

    def take(self, writable: list[Path] | None = None) -> StartedWorker:
        """A fresh worker that has run nothing yet, which may also write ``writable`` (then never a spare): the
        oldest live spare when there is one, else one started now; then the spares are topped up."""
        if writable:
            return self.start(writable)
        worker = None
        while worker is None and self._spares:
            worker = self._spares.popleft()
            if not worker.alive():
                self.stats["spares_dead"] += 1
                worker.discard()
                worker = None
        if worker is None:
            worker = self.start()
        else:
            self.stats["spares_used"] += 1
        while len(self._spares) < self.spares_wanted:
            self._spares.append(self.start())
        return worker

    def start(self, writable: list[Path] | None = None) -> StartedWorker:
        scratch = Path(tempfile.mkdtemp(prefix="kernelgym-run-"))
        xfer = Path(tempfile.mkdtemp(prefix="kernelgym-xfer-", dir=SHM if SHM.is_dir() else None))
        read_fd, write_fd = os.pipe()
        log_fd = os.open(scratch / "log.txt", os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        seccomp_fd = -1
        ours, theirs = socket.socketpair() if self.fd_socket else (None, None)
        try:
            argv = [sys.executable, BOOTSTRAP, str(write_fd), str(theirs.fileno() if theirs else -1)]
            pass_fds = [write_fd] + ([theirs.fileno()] if theirs else [])
            if self.sandboxed:
                seccomp_fd = sandbox.seccomp_fd()
                argv = sandbox.command(argv, scratch, [xfer, *(writable or [])], seccomp_fd, self.hidden)
                pass_fds.append(seccomp_fd)
            proc = spawn(argv, stdin=subprocess.PIPE, stdout=log_fd, stderr=subprocess.STDOUT, pass_fds=pass_fds,
                         cwd=scratch, env=self.env_for(scratch), start_new_session=True)
        except BaseException:
            for fd in (read_fd, log_fd):
                os.close(fd)
            if ours is not None:
                ours.close()
            shutil.rmtree(scratch, ignore_errors=True)
            shutil.rmtree(xfer, ignore_errors=True)
            raise
        finally:
            os.close(write_fd)
            if seccomp_fd >= 0:
                os.close(seccomp_fd)
            if theirs is not None:
                theirs.close()
        if ours is not None:
            ours.setblocking(False)  # a worker that never reads cannot make the runner wait
        self.stats["started"] += 1
        return StartedWorker(proc, read_fd, scratch, xfer, log_fd, self.sandboxed, ours)

    def idle_pids(self) -> list[int]:
        """Process-group ids of the idle spares (they have run no candidate code), for leftover accounting."""
        return [spare.proc.pid for spare in self._spares]

    def close(self) -> None:
        """Kill and clean up every spare."""
        while self._spares:
            self._spares.popleft().discard()
