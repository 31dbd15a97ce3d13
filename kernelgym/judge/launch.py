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
end-of-file on its stdin and exits. The judges of one pool share their spares (:class:`SpareWorkers`): a spare
belongs to no candidate and no judge until it is taken, so which judge takes it changes nothing either.

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
import functools
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
from kernelgym.judge.admission import OutsideHold
from kernelgym.judge.process import (LOG_TAIL_CHARS, descendants, kill_group, remove_tree, signal_each, signal_tree,
                                     tail_fd)

SHM = Path("/dev/shm")
BOOTSTRAP = str(Path(__file__).resolve().parent / "bootstrap.py")


#: spares each judge of a pool keeps (:class:`~kernelgym.evaluators.local.ThreadJudges`): a pool's judges evaluate
#: back to back, and on the H200 a worker's start-up (CUDA context included) outlasts one small task's evaluation
POOL_SPARES = 2

#: GPU memory of one worker's CUDA context (torch 2.11 on the H100: 624 MiB in the driver's account of a worker,
#: twenty-sixth session), counted by the GPU's memory budget while the worker lives outside its evaluation's
#: reservation (:meth:`~kernelgym.judge.admission.MemoryBudget.hold_outside`)
WORKER_CONTEXT_BYTES = 640 << 20

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
    writable: tuple = ()  # folders besides its own it may write (a CUDA candidate's build folder)
    killed: bool = False
    aborted: bool = False  # :meth:`abort` killed it: its evaluation was abandoned by the caller
    _kill_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _stopped: set | None = field(default=None, repr=False)  # what the last :meth:`freeze` stopped
    #: its CUDA context's memory, counted outside every reservation until its evaluation's own reservation (which
    #: includes it) is made, or until it is killed (:meth:`end_context_hold`)
    context_hold: OutsideHold | None = field(default=None, repr=False)

    def end_context_hold(self) -> None:
        """Stop counting its CUDA context outside the reservations: its evaluation's reservation holds it now, or
        the process is gone (:meth:`kill`). Idempotent."""
        if self.context_hold is not None:
            self.context_hold.release()

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        """Kill the worker's whole process group (once) and close the channel; the scratch directory stays."""
        with self._kill_lock:
            if self.killed:
                return
            self.killed = True
            kill_group(self.proc)
        self.end_context_hold()  # gone with the process either way
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
        descendants, whatever process group they put themselves in. Resuming after a freeze resumes the processes
        the freeze stopped, without scanning ``/proc`` again: none of them could start another while stopped."""
        if self.killed:
            return
        if frozen:
            self._stopped = signal_tree(self.proc.pid, signal.SIGSTOP)
            return
        stopped, self._stopped = self._stopped, None
        if stopped is None:
            signal_tree(self.proc.pid, signal.SIGCONT)
        else:
            signal_each(stopped, signal.SIGCONT)

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
            # at most 9 digits: the log is the candidate's text too, and int() refuses a string of 4300 digits
            # (a forged dump line of 5000 made a timeout the judge's fault, a red-team helper, 2026-12-06)
            lines = re.findall(r'File "[^"]*candidate\.py", line (\d{1,9})\b', dump)
        return int(lines[0]) if lines else None  # faulthandler prints the innermost frame first

    def log_tail(self, chars: int = LOG_TAIL_CHARS) -> str:
        """The end of what the worker printed, read through the runner's own descriptor."""
        return tail_fd(self.log_fd, chars)

    def discard(self) -> None:
        """:meth:`kill`, then delete the scratch and transfer folders and close the log: each step whatever the
        others did (the worker shaped those folders; :func:`~kernelgym.judge.process.remove_tree` never raises)."""
        try:
            self.kill()
        finally:
            remove_tree(self.xfer)  # host memory in /dev/shm first
            remove_tree(self.scratch)
            if self.log_fd >= 0:
                os.close(self.log_fd)
                self.log_fd = -1


def _recipe_of(env_for: Callable) -> tuple:
    """What ``env_for`` makes, as a comparable value: a :func:`functools.partial`'s function and arguments."""
    if isinstance(env_for, functools.partial):
        return env_for.func, env_for.args, tuple(sorted(env_for.keywords.items()))
    return (env_for,)


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
        spares: take spares from, and top up, this :class:`SpareWorkers` shared with other launchers of the same
            :attr:`recipe` (a pool's judges); default: a set of its own.
        gpu_budget: the GPU's :class:`~kernelgym.judge.admission.MemoryBudget` (``None`` on the CPU): each worker
            started counts :data:`WORKER_CONTEXT_BYTES` in it outside the reservations
            (:attr:`StartedWorker.context_hold`), spares included, until its evaluation reserves memory or it dies.
        gpu_node: the device node of the judge's GPU, the only GPU node a sandboxed worker gets
            (:mod:`kernelgym.judge.gpu_isolation`); ``None``: every GPU node of the machine.

    :meth:`take` hands over a worker the caller owns from then on (and must :meth:`StartedWorker.discard`);
    :meth:`close` kills the spares it asked for. Not thread-safe, like the judge that owns it (its shared
    :class:`SpareWorkers` is).
    """

    def __init__(self, env_for: Callable[[Path], dict[str, str]], sandbox_mode: str = "bwrap",
                 prestart: bool | int = False, fd_socket: bool = False, hidden: tuple = (),
                 spares: "SpareWorkers | None" = None, gpu_budget=None, gpu_node: str | None = None):
        sandbox.require(sandbox_mode)
        if not isinstance(prestart, int) or prestart < 0:  # bool is an int: True is one spare
            raise ValueError(f"prestart must be a bool or a count of spare workers >= 0, not {prestart!r}")
        self.env_for = env_for
        self.gpu_budget = gpu_budget
        self.sandboxed = sandbox_mode == "bwrap"
        self.fd_socket = fd_socket
        self.hidden = tuple(hidden)
        self.gpu_node = gpu_node
        self.spares_wanted = int(prestart) if self.sandboxed else 0
        self.spares = spares if spares is not None else SpareWorkers()
        #: how this launcher starts workers; launchers sharing :attr:`spares` must agree on it
        self.recipe = (self.sandboxed, self.fd_socket, self.hidden, self.gpu_node, _recipe_of(env_for))
        self._attached = False  # its spares_wanted counted in :attr:`spares`
        if self.spares_wanted:
            self.spares.bind(self.recipe)
        self.stats = {"started": 0, "spares_used": 0, "spares_dead": 0}

    def take(self, writable: list[Path] | None = None) -> StartedWorker:
        """A fresh worker that has run nothing yet, which may also write ``writable`` (then never a spare): the
        oldest live spare when there is one, else one started now; then the spares are topped up."""
        if writable or not self.spares_wanted:
            return self.start(writable)
        if not self._attached:
            self.spares.attach(self.spares_wanted)
            self._attached = True
        worker, dead = self.spares.pop_oldest()
        self.stats["spares_dead"] += dead
        if worker is None:
            worker = self.start()
        else:
            self.stats["spares_used"] += 1
        self.spares.top_up(self.start)
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
                argv = sandbox.command(argv, scratch, [xfer, *(writable or [])], seccomp_fd, self.hidden,
                                       self.gpu_node)
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
        context = self.gpu_budget.hold_outside(WORKER_CONTEXT_BYTES) if self.gpu_budget is not None else None
        return StartedWorker(proc, read_fd, scratch, xfer, log_fd, self.sandboxed, ours,
                             writable=tuple(Path(p) for p in writable or ()), context_hold=context)

    def idle_pids(self) -> list[int]:
        """Process-group ids of the idle spares (they have run no candidate code), for leftover accounting: all of
        the shared :class:`SpareWorkers`' when the launcher takes from one."""
        return self.spares.pids()

    def close(self) -> None:
        """Give up this launcher's spares: kill them all, or, where the spares are shared, as many as it asked
        for (the youngest first). A later :meth:`take` asks for them again."""
        if self._attached:
            self._attached = False
            self.spares.detach(self.spares_wanted)


class SpareWorkers:
    """Spare workers that several launchers take from, oldest first: the judges of one pool
    (:class:`~kernelgym.evaluators.local.ThreadJudges`). Thread-safe.

    A pool's evaluations do not follow each other at one pace per thread: a thread whose candidates fail to compile
    finishes one every 2-3 s, while on the H200 a worker's start-up under load took up to 8.7 s, so a thread's own
    two spares ran dry (batch B at dd9beaa: 20 of 128 evaluations waited more than 5 s for a worker,
    docs/BENCHMARKS.md) while other threads' spares waited unused. Shared, the spares are as many as the launchers
    asked for together, and each is taken as the oldest of them all, so its start-up had the whole pool's pace to
    finish in.

    Every launcher that takes from one set must start its workers alike (:attr:`WorkerLauncher.recipe`: the same
    sandbox, environment, handover socket and hidden folders): a spare has no owner, and its view of the file system
    is fixed when it starts. A launcher with another recipe is refused when it is made (``ValueError``).
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._spares: collections.deque[StartedWorker] = collections.deque()
        self._wanted = 0
        self._starting = 0
        self._recipe: tuple | None = None

    def bind(self, recipe: tuple) -> None:
        """Admit a launcher of ``recipe``: the first one sets it, another recipe is a ``ValueError``."""
        with self._lock:
            if self._recipe is not None and recipe != self._recipe:
                raise ValueError("judges that share spare workers must start them alike (the same sandbox, device, "
                                 "cache folder and output handover)")
            self._recipe = recipe

    def attach(self, count: int) -> None:
        """Ask for ``count`` more spares (started by :meth:`top_up`)."""
        with self._lock:
            self._wanted += count

    def detach(self, count: int) -> None:
        """Ask for ``count`` fewer spares; the youngest beyond the new number are killed now."""
        surplus = []
        with self._lock:
            self._wanted = max(0, self._wanted - count)
            while len(self._spares) > self._wanted:
                surplus.append(self._spares.pop())
        for spare in surplus:
            spare.discard()

    def pop_oldest(self) -> tuple[StartedWorker | None, int]:
        """The oldest live spare (``None`` when there is none) and how many dead ones were thrown away first."""
        dead = []
        worker = None
        with self._lock:
            while worker is None and self._spares:
                worker = self._spares.popleft()
                if not worker.alive():
                    dead.append(worker)
                    worker = None
        for spare in dead:
            spare.discard()
        return worker, len(dead)

    def top_up(self, start: Callable[[], StartedWorker]) -> None:
        """Start spares with ``start`` until there are as many (started or starting) as asked for."""
        with self._lock:
            missing = self._wanted - len(self._spares) - self._starting
            self._starting += max(0, missing)
        for _ in range(max(0, missing)):
            worker = None
            try:
                worker = start()
            finally:
                with self._lock:
                    self._starting -= 1
                    keep = worker is not None and len(self._spares) < self._wanted
                    if keep:
                        self._spares.append(worker)
            if worker is not None and not keep:  # asked for fewer while it started
                worker.discard()

    def pids(self) -> list[int]:
        with self._lock:
            return [spare.proc.pid for spare in self._spares]
