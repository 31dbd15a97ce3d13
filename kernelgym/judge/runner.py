"""The trusted side of the judge: ``Judge.evaluate`` runs the stages of :data:`~kernelgym.judge.protocol.STAGES`
in order and turns their outcome into one :class:`EvalResult`.

``Judge`` only orchestrates. The text is extracted (``format``) and checked (``static``) here; a sandboxed worker
(:mod:`.launch`, :mod:`.sandbox`) then runs it, and the conversation with it, with every comparison, lives in a
:class:`~kernelgym.judge.session.Session` that is handed the reference side (:class:`~kernelgym.judge.reference.
ReferenceSide`) and the GPU admission (:class:`~kernelgym.judge.admission.GpuAdmission`) as objects. After the
worker is killed the reference is timed once more, alone (:meth:`Judge._confirm_baseline`), and the timing is
recorded with the runner's bound (:mod:`.wallclock`).

A worker that dies (signal, ``os._exit``, abort, CUDA fault) gives ``crashed``; its whole process group, and so its
sandbox, is killed after every evaluation, so no process outlives :meth:`Judge.evaluate`, and nothing raised by
the candidate reaches the caller.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import re
import time
import traceback
import weakref
from pathlib import Path

from kernelgym.judge import gpu_memory, guards, host_sync, policy
from kernelgym.judge.admission import GPU_MEMORY_SHARE, GpuAdmission, NoBudget
from kernelgym.judge.batch import BatchPlan
from kernelgym.judge.compile import extension_dir, holds_built_library, summarize_compiler_errors
from kernelgym.judge.device_transfer import available as device_transfer_available
from kernelgym.judge.device_transfer import enabled as device_transfer_asked
from kernelgym.judge.extract import ExtractionError, extract_code
from kernelgym.judge.footprint import Footprint, footprint
from kernelgym.judge.gpu_compile import enabled as gpu_compile_enabled
from kernelgym.judge.gpu_isolation import worker_gpu
from kernelgym.judge.inputs import secret_seed
from kernelgym.judge.launch import StartedWorker, WorkerLauncher
from kernelgym.judge.process import LOG_TAIL_CHARS, folder_bytes, remove_tree
from kernelgym.judge.profiles import EvalProfile, get_profile
from kernelgym.judge.reference import COMPILE_LOCK, ReferenceSide  # noqa: F401  (COMPILE_LOCK re-exported)
from kernelgym.judge.result import EvalResult
from kernelgym.judge.sandbox import NO_GPU, mode_from, worker_python_path
from kernelgym.judge.session import COMPARED_FLOOR, SNAPSHOT_BYTES, Session, Settings
from kernelgym.judge.timing import TIMING_METHOD, check_method
from kernelgym.judge.verdict import Verdict
from kernelgym.judge.witness import Witness
from kernelgym.judge.witness import mode_from as witness_mode_from
from kernelgym.parsing import compile_source
from kernelgym.tasks import Task


def default_device() -> str:
    import torch

    return "cuda:0" if torch.cuda.is_available() else "cpu"


def worker_env(scratch: Path, on_cpu: bool, warm_device: str | None = None,
               visible_gpu: str | None = None) -> dict[str, str]:
    """The process environment of a worker: scrubbed, rooted in its scratch directory, the same for every
    candidate (so a worker can be started before its candidate is known). ``warm_device``: the judge's GPU as the
    worker names it, on which the worker creates its CUDA context while it waits for its request
    (``KERNELGYM_WARM_DEVICE``); ``visible_gpu``: the only GPU the worker's CUDA sees (its
    ``CUDA_VISIBLE_DEVICES``, :mod:`kernelgym.judge.gpu_isolation`), else the runner's ``CUDA_VISIBLE_DEVICES``;
    empty on the CPU (such a worker sees no GPU, nor are the GPUs' device nodes bound in its sandbox)."""
    keep = ("PATH", "LANG", "LC_ALL", "CUDA_VISIBLE_DEVICES", "CUDA_HOME", "CUDA_PATH", "LD_LIBRARY_PATH",
            "TORCH_CUDA_ARCH_LIST", "NVIDIA_VISIBLE_DEVICES", "VIRTUAL_ENV", "CC", "CXX")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    # the runner's own import path (site directories given by PYTHONPATH included), never the candidate's
    python_path = worker_python_path()
    env.update(HOME=str(scratch), TMPDIR=str(scratch), PYTHONPATH=python_path, PYTHONDONTWRITEBYTECODE="1",
               TRITON_CACHE_DIR=str(scratch / "triton"), PYTHONHASHSEED="0",
               OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"), KERNELGYM_RUNNER_PID=str(os.getpid()))
    if visible_gpu and not on_cpu:
        env["CUDA_VISIBLE_DEVICES"] = visible_gpu
    if on_cpu:  # a CPU judge's worker uses no GPU (the interpreter, the GPU compile check and CUDA builds need none)
        env["CUDA_VISIBLE_DEVICES"] = ""
    if on_cpu:
        env["TRITON_INTERPRET"] = "1"
    elif warm_device:
        env["KERNELGYM_WARM_DEVICE"] = warm_device
    return env


#: the most a CUDA candidate's build folder may keep after its evaluation (it is kept for later evaluations of the
#: same text; a real build leaves tens of MB)
BUILD_FOLDER_LIMIT_BYTES = 1 << 30

#: an evaluation's GPU memory until its candidate is built, in eager footprints (:meth:`Judge.build_memory_need`)
BUILD_FOOTPRINTS = 2

#: copies of the forward's own outputs an evaluation holds beyond its footprints (:meth:`Judge.memory_need`), and
#: until built (:meth:`Judge.build_memory_need`). The outputs are what the runner keeps, copies and compares: on an
#: H100 (ca010d6) the elementwise tasks whose outputs are half their 9.16 GiB footprint (L1/15, L1/17, L1/19) took
#: 51.5 GiB whole and 24.3 until built against 39.6 and 20.3 reserved, and with both processes over their
#: reservation, batch B's rows of L1/15 and L2/20 ran out of memory (twenty-ninth session, docs/BENCHMARKS.md);
#: these cover those figures (53.4 and 24.9 GiB), and add little where outputs are small (L1/14: 0.54 GiB to 5.6;
#: L2/20: 1.5 to 14.0)
OUTPUT_COPIES = 3
BUILD_OUTPUT_COPIES = 1

#: the float64 reference's GPU memory in eager footprints (:meth:`Judge.exact_memory_need`): twice the bytes of every
#: tensor, and the wide trial's moved copy of the data with its largest changes beside the result
EXACT_FOOTPRINTS = 3

#: what a CUDA out-of-memory error says: torch's exception, its message, the runtime's and the driver's codes
OUT_OF_GPU_MEMORY = re.compile(r"OutOfMemoryError|CUDA out of memory|cudaErrorMemoryAllocation"
                               r"|CUDA_ERROR_OUT_OF_MEMORY")


def raised_where(exc: BaseException, frames: int = 3) -> str:
    """Where ``exc`` was raised: its innermost ``frames`` frames as ``file:line in function``, innermost first, each
    called from the next (an internal error's flag says where, so a fault seen once on a GPU can be found without
    running it again)."""
    stack = traceback.extract_tb(exc.__traceback__)[-frames:]
    where = " <- ".join(f"{Path(f.filename).name}:{f.lineno} in {f.name}" for f in reversed(stack))
    return f"raised at {where}" if where else "raised where no frame was kept"


def drop_traceback_locals(exc: BaseException | None) -> None:
    """Clear the local variables of the finished frames in ``exc``'s traceback, and in those of the exceptions it
    was raised from or during (``None``: nothing). The frames' code and line numbers stay (where an error was
    raised can still be said); the tensors the frames held are freed now rather than when the caller drops the
    exception."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        traceback.clear_frames(exc.__traceback__)
        exc = exc.__cause__ or exc.__context__


#: static flags a result keeps at most (the message counts them all): a text of 80,000 characters importing 6,000
#: modules had 6,000 flags, 1.6 MB of result per step (a fifteenth red-team helper, 2026-12-07)
MAX_STATIC_FLAGS = 32


def kept_flags(flags: list[tuple[str, str]], limit: int = MAX_STATIC_FLAGS) -> list[tuple[str, str]]:
    """At most ``limit`` of ``flags``, in their order: the first of each name, then the others as they come."""
    chosen: set[int] = set()
    names: set[str] = set()
    for i, (name, _) in enumerate(flags):
        if name not in names and len(chosen) < limit:
            names.add(name)
            chosen.add(i)
    for i in range(len(flags)):
        if len(chosen) >= limit:
            break
        chosen.add(i)
    return [flag for i, flag in enumerate(flags) if i in chosen]


class Judge:
    """Evaluates candidates for tasks on one device. Thread-compatible, not thread-safe: one evaluation at a time.

    Args:
        device: ``"cpu"`` (Triton interpreter, small shapes) or ``"cuda[:i]"``; default: the GPU when there is one.
        cache_dir: where eager baselines and CUDA builds are cached (``~/.cache/kernelgym`` by default); no worker
            can see it, except the build folder of its own source text.
        static_checks: run the static guards (turn off only to test the run-time defences on their own).
        memory_limit_bytes: resident memory of a worker's processes together above which it is killed (``crashed``).
        min_kernel_coverage: on a GPU, the least share of kernel time the candidate's own kernels must carry.
        sandbox: ``"bwrap"`` (default: every worker in the sandbox of :mod:`kernelgym.judge.sandbox`; raises
            :class:`~kernelgym.judge.sandbox.SandboxUnavailable` here when it cannot be set up) or ``"unsafe"``
            (plain child processes; every result flagged ``unsandboxed``); default ``$KERNELGYM_SANDBOX`` or bwrap.
        gpu_lock: a :class:`~kernelgym.judge.admission.SharedExclusiveLock` shared by judges that evaluate
            concurrently on one GPU, one step at a time: the build, each trial and the profiled forward hold it
            shared, the timing warm-up and rounds exclusively, in slices (:meth:`Session.gpu`,
            :class:`~kernelgym.judge.admission.SlicedHold`). Default on a GPU:
            the process-wide admission of that device (:meth:`GpuAdmission.for_device`), so judges in threads of
            one process coordinate without being told; each evaluation also reserves its estimated GPU memory
            from that device's budget for its whole run: :meth:`build_memory_need` while its candidate is built,
            :meth:`memory_need` after.
        prestart_workers: keep fresh sandboxed workers started ahead (``True``: one; an int: that many), so a
            worker's start-up, its CUDA context included, is off the critical path; isolation is unchanged
            (:mod:`.launch`). They live until :meth:`close`.
        spare_workers: take the spares from this :class:`~kernelgym.judge.launch.SpareWorkers`, shared with other
            judges made with the same arguments (a pool's: :class:`~kernelgym.evaluators.local.ThreadJudges`), so
            whichever judge needs a worker next gets the oldest spare of them all; default: spares of its own.
        device_transfer: on a GPU, hand outputs over in device memory (:mod:`.device_transfer`) instead of host
            files; default on unless ``$KERNELGYM_DEVICE_TRANSFER`` is ``"0"`` (:func:`.device_transfer.enabled`).
        witness: a second worker of the evaluation's task that never gets the candidate and times null calls in
            the candidate's timing window, whose per-call overhead the runner's wall-clock bound then subtracts
            (:mod:`.witness`): ``"off"``, ``"lazy"`` (``True``: only where the bound would raise or reject the
            candidate's runtime) or ``"always"``; default ``$KERNELGYM_WITNESS`` (``off`` where unset). Each costs one
            more worker start (a spare when there is one) and its GPU memory (:meth:`witness_memory_need`).
    """

    def __init__(self, device: str | None = None, cache_dir: str | os.PathLike | None = None,
                 static_checks: bool = True, memory_limit_bytes: int = 16 << 30, min_kernel_coverage: float = 0.5,
                 sandbox: str | None = None, gpu_lock=None, prestart_workers: bool | int = False,
                 device_transfer: bool | None = None, timing_method: str | None = None, spare_workers=None,
                 witness: bool | str | None = None):
        self.device = device or default_device()
        self.witness = witness_mode_from(witness)  # a misspelt mode (or KERNELGYM_WITNESS) fails here
        self.on_cpu = self.device == "cpu"
        # a misspelt method (or KERNELGYM_TIMING_METHOD) fails here, not in the first timed block
        self.timing_method = check_method(timing_method or TIMING_METHOD)
        host_sync.asked()  # a misspelt KERNELGYM_RUNNER_SYNC fails here, on any device
        #: the runner context's scheduling flags where KERNELGYM_RUNNER_SYNC asks for them (None: left as CUDA has them)
        self.host_sync_flags = None if self.on_cpu else host_sync.apply_asked(self.device)
        self.static_checks = static_checks
        self.memory_limit_bytes = memory_limit_bytes
        self.min_kernel_coverage = min_kernel_coverage
        self.sandbox = mode_from(sandbox)
        if self.on_cpu:  # no memory budget on the CPU; a lock given still orders the steps of concurrent judges
            self.admission = GpuAdmission.none() if gpu_lock is None else GpuAdmission(gpu_lock, NoBudget())
        else:
            self.admission = GpuAdmission.for_device(self.device, gpu_lock)
        self._footprints: dict[str, Footprint | None] = {}  # task key -> its footprint (:meth:`_footprints_need`)
        self.cache_dir = Path(cache_dir or os.environ.get("KERNELGYM_CACHE", Path.home() / ".cache" / "kernelgym"))
        self._versions: dict[str, str] | None = None
        self._hardware = None
        self.reference = ReferenceSide(self.device, self.cache_dir, self.describe_device(), self.versions()["torch"],
                                       self.timing_method)
        #: the judge's GPU as its workers see it, alone (``None``: as the runner sees it, every GPU)
        self.worker_gpu = None if self.on_cpu else worker_gpu(self.device)
        #: the judge's device by the workers' name for it (what the request names and their outputs report)
        self.worker_device = self.worker_gpu.device if self.worker_gpu is not None else self.device
        env_for = functools.partial(worker_env, on_cpu=self.on_cpu,
                                    warm_device=None if self.on_cpu else self.worker_device,
                                    visible_gpu=self.worker_gpu.visible if self.worker_gpu is not None else None)
        self.settings = Settings(self.on_cpu, memory_limit_bytes, min_kernel_coverage, self.worker_device)
        handover = device_transfer_asked() if device_transfer is None else bool(device_transfer)
        # without the driver's API the outputs take the file path from the start, and reservations count 3 copies
        self.device_transfer = handover and not self.on_cpu and device_transfer_available()
        self.launcher = WorkerLauncher(env_for, self.sandbox, prestart_workers, fd_socket=self.device_transfer,
                                       hidden=(self.cache_dir,), spares=spare_workers,
                                       gpu_budget=None if self.on_cpu else self.admission.budget,
                                       gpu_node=NO_GPU if self.on_cpu else
                                       self.worker_gpu.node if self.worker_gpu is not None else None)
        self._in_flight: StartedWorker | None = None  # the worker of the evaluation running now (:meth:`abort`)
        self._builder: Judge | None = None  # builds CUDA candidates without a GPU (:meth:`_build_without_gpu`)
        weakref.finalize(self, self.launcher.close)

    # ------------------------------------------------------------------------------------------------------
    def evaluate(self, task: Task, text: str, backend: str = "triton", profile: str | EvalProfile = "quick",
                 torch_policy: str = policy.DEFAULT, batch: BatchPlan | None = None) -> EvalResult:
        """Evaluate one candidate text for ``task`` under ``torch_policy`` (:mod:`kernelgym.judge.policy`). Never
        raises on anything the text contains (ValueError for an unknown profile or policy, or a ``batch`` plan of
        another task). With ``batch`` (a :class:`~kernelgym.judge.batch.BatchPlan` of ``task``), the trials use
        the plan's secret seeds and reference outputs, shared with the other evaluations of the batch."""
        prof = get_profile(profile)
        if batch is not None:
            batch.check_task(task)
        result = EvalResult(task_id=task.id, backend=backend, device=self.describe_device(), profile=prof.name,
                            versions=self.versions(), hardware={"device": self.device},
                            torch_policy=policy.check(torch_policy))
        if self.sandbox == "unsafe":
            result.add_flag("unsandboxed", "the worker ran without the sandbox (sandbox='unsafe'): the candidate "
                                           "had the judge's privileges, so this verdict is not trustworthy")
        started = time.monotonic()
        try:
            source = self._stage_format(result, text)
            self._stage_static(result, source, backend)
            if backend == "cuda" and self.on_cpu:
                raise Verdict("unsupported", "CUDA candidates cannot run on this device (no GPU); use the triton "
                                              "backend or evaluate on a GPU")
            if backend == "cuda":
                failed = self._build_without_gpu(task, text, source, prof, result)
                if failed is not None:
                    failed.durations["total"] = round(time.monotonic() - started, 3)
                    return failed
            self._run_worker_or_retry_alone(result, task, source, prof, batch)
            result.stage, result.status = "done", "ok"
            result.message = self._ok_message(result)
        except Verdict as verdict:
            result.status, result.message = verdict.status, verdict.message
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - a fault of the judge itself must not end the caller's
            # run, nor library code the judge ran in this process that called sys.exit
            result.status = "crashed"
            result.message = f"internal judge error (not the candidate's fault): {type(exc).__name__}: {exc}"[:500]
            result.add_flag("judge_error", f"{result.message} ({raised_where(exc)})")
        result.durations["total"] = round(time.monotonic() - started, 3)
        return result.make_text_valid()  # the worker's words (an exception's message) may hold lone surrogates

    def memory_need(self, task: Task) -> int:
        """GPU bytes one evaluation of ``task`` is expected to take at most, runner and worker together: three
        times the eager footprint (its peak) of :func:`kernelgym.judge.footprint.footprint` (inputs and their copy,
        outputs, the reference's own run), once more when outputs are handed over in device memory (the lent
        buffer and the runner's copy of it), :data:`OUTPUT_COPIES` times the forward's own outputs, the snapshots
        of one block of timed calls on both sides, plus 1 GiB (:meth:`_footprints_need`: the footprint cached per
        task; half the budget without it; 0 on the CPU)."""
        return self._footprints_need(task, 4 if self.device_transfer else 3, 2 * SNAPSHOT_BYTES["gpu"] + (1 << 30),
                                     outputs=OUTPUT_COPIES)

    def build_memory_need(self, task: Task) -> int:
        """GPU bytes an evaluation of ``task`` holds until its candidate is built (:meth:`memory_need` after it:
        :meth:`kernelgym.judge.session.Session.grow_memory`), runner and worker together: :data:`BUILD_FOOTPRINTS`
        eager footprints (the reference's outputs of the first standard trial here; the model and its first forward
        in the worker), :data:`BUILD_OUTPUT_COPIES` times the forward's own outputs, the null calls' outputs (at
        most one block's snapshots) and 1 GiB; no more than :meth:`memory_need`. Compiling needs no GPU, and the
        build held the whole reservation for 63% of the time any was held in batch B (H100, 8b90b7c)."""
        return min(self._footprints_need(task, BUILD_FOOTPRINTS, SNAPSHOT_BYTES["gpu"] + (1 << 30),
                                         outputs=BUILD_OUTPUT_COPIES), self.memory_need(task))

    def exact_memory_need(self, task: Task) -> int:
        """GPU bytes the float64 reference of ``task`` takes beside its evaluation, reserved only where it ran out
        of memory without (:meth:`kernelgym.judge.session.Session.exact_room`): :data:`EXACT_FOOTPRINTS` times the
        eager footprint (its peak: every tensor twice the bytes in float64; the wide trial's moved copy of the data and
        its largest changes) plus 1 GiB; half the budget when the bound cannot be had; 0 on the CPU."""
        return self._footprints_need(task, EXACT_FOOTPRINTS, 1 << 30)

    def _footprints_need(self, task: Task, footprints: int, extra: int, outputs: int = 0) -> int:
        """``footprints`` times the eager footprint of ``task`` (what one forward holds at most at one moment: its
        ``peak``; the sum of every operator's output reserved about twice what fused tasks used, L1/100 and L2/20
        on an H100, thirty-first session), ``outputs`` times its forward's own outputs, plus ``extra`` bytes: 0 on
        the CPU, half the budget where the footprint cannot be had (:func:`kernelgym.judge.footprint.footprint`,
        cached per task)."""
        if self.on_cpu:
            return 0
        key = task.key
        if key not in self._footprints:
            try:
                self._footprints[key] = footprint(task)
            except Exception:  # noqa: BLE001
                self._footprints[key] = None
        measured = self._footprints[key]
        if measured is None:
            return (self.admission.budget.capacity or 0) // 2
        return footprints * measured.peak + outputs * measured.outputs + extra

    # -- stages on the trusted side -----------------------------------------------------------------------
    def _stage_format(self, result: EvalResult, text: str) -> str:
        t0 = time.monotonic()
        result.stage = "format"
        try:
            return extract_code(text)
        except ExtractionError as exc:
            raise Verdict("compile_error", f"format: {exc}") from None
        finally:
            result.durations["format"] = round(time.monotonic() - t0, 3)

    def _stage_static(self, result: EvalResult, source: str, backend: str) -> None:
        t0 = time.monotonic()
        result.stage = "static"
        try:
            try:
                compile_source(source, "candidate.py", "exec", dont_inherit=True)  # syntax, always checked
            except RecursionError:  # valid Python nested deeper than the compiler's stack: not this judge's fault
                raise Verdict("compile_error", "the program nests its syntax too deeply to be compiled (the "
                                               "interpreter's compiler ran out of stack)") from None
            try:
                flags = guards.check_source(source, backend, result.torch_policy) if self.static_checks else []
            except RecursionError:  # the guards bound the syntax they read (guards.MAX_NESTING): a last resort
                flags = [("too_complex", "nests its syntax too deeply for the static checks")]
        except SyntaxError as exc:
            raise Verdict("compile_error", f"syntax error at line {exc.lineno}: {exc.msg}") from None
        except ValueError as exc:
            raise Verdict("compile_error", str(exc)) from None
        finally:
            result.durations["static"] = round(time.monotonic() - t0, 3)
        if flags and all(name in guards.BROKEN_TEXT_FLAGS for name, _ in flags):
            raise Verdict("compile_error", f"static checks: {flags[0][1]}")  # a typo, not a trick: no flags
        for name, reason in kept_flags(flags):
            result.add_flag(name, reason)
        if flags:
            raise Verdict("rejected", f"rejected by static checks: {flags[0][1]}"
                                       + (f" (+{len(flags) - 1} more)" if len(flags) > 1 else ""))

    # -- the worker ---------------------------------------------------------------------------------------
    def prebuild(self, task: Task, text: str, arch: str | None = None, profile: str | EvalProfile = "quick",
                 torch_policy: str = policy.DEFAULT) -> EvalResult | None:
        """Build a CUDA candidate without a GPU into the source-keyed build cache, ahead of its evaluation.

        Returns the verdict when the candidate already fails here (format, static checks under ``torch_policy``,
        build errors), else ``None`` (the GPU evaluation then loads the finished build). Triton candidates return
        ``None`` at once.
        """
        prof = get_profile(profile)
        result = EvalResult(task_id=task.id, backend="cuda", device="cpu (build only)", profile=prof.name,
                            versions=self.versions(), torch_policy=policy.check(torch_policy))
        try:
            source = self._stage_format(result, text)
            self._stage_static(result, source, "cuda")
            self._run_worker(result, task, source, prof, mode="build", arch=arch)
        except Verdict as verdict:
            result.status, result.message = verdict.status, verdict.message
            return result.make_text_valid()
        return None

    def _build_without_gpu(self, task: Task, text: str, source: str, prof: EvalProfile,
                           result: EvalResult) -> EvalResult | None:
        """Build a CUDA candidate (``load_inline``: 65 s cold on the H200 machine) in a worker that sees no GPU,
        before the GPU worker is taken: built there, the GPU worker's build-and-first-forward step, which holds the
        GPU shared and so keeps every timer waiting, only loads the cached build. The build's failure verdict is
        returned as the evaluation's (``durations["prebuild"]`` either way). Nothing to do when the source's build
        is already in the cache (a Ray pool prebuilds on its CPU workers)."""
        if holds_built_library(extension_dir(self.cache_dir, source)):
            return None
        started = time.monotonic()
        if self._builder is None:
            self._builder = Judge(device="cpu", cache_dir=self.cache_dir, static_checks=self.static_checks,
                                  memory_limit_bytes=self.memory_limit_bytes, sandbox=self.sandbox)
        failed = self._builder.prebuild(task, text, arch=self.hardware().compute_capability, profile=prof,
                                        torch_policy=result.torch_policy)
        result.durations["prebuild"] = round(time.monotonic() - started, 3)
        if failed is not None:
            failed.device, failed.durations = result.device, {**failed.durations, **result.durations}
            failed.flags = result.flags + [f for f in failed.flags if f not in result.flags]
        return failed

    def _run_worker_or_retry_alone(self, result: EvalResult, task: Task, source: str, prof: EvalProfile,
                                   plan: BatchPlan | None) -> None:
        """:meth:`_run_worker`; when the worker ran out of GPU memory while other evaluations held part of the
        budget, once more with the GPU's whole memory budget to itself (a fresh worker, the result as it was
        before the first attempt plus a ``retried_alone`` flag). Running out of memory with the GPU shared is the
        judge's doing, not the candidate's; an out-of-memory error when alone is its verdict (flag
        ``out_of_memory_alone``), unless the driver's account (:mod:`kernelgym.judge.gpu_memory`, taken while the
        worker still lived) shows processes outside the candidate's tree holding more than the budget leaves outside
        its reservations for other work than this evaluation (the runner's memory up to :meth:`memory_need` counts
        as the evaluation's): then the evaluation is ``crashed`` with a ``judge_error`` flag, no verdict on the
        candidate. A candidate that fakes the message gains nothing but one more evaluation of itself, and a crash
        where the judge failed. The judge's own out-of-memory error in this process (a ``torch.OutOfMemoryError``
        of the reference side, never a verdict) is retried alone the same way; raised again alone, it ends the
        evaluation ``crashed`` with a ``judge_error`` flag that says where it was raised."""
        before = copy.deepcopy(result)
        try:
            return self._run_worker(result, task, source, prof, plan=plan)
        except Verdict as verdict:
            if self.admission.budget.capacity is None or not self._out_of_gpu_memory(verdict, result):
                raise
            result.__dict__.update(before.__dict__)
            result.add_flag("retried_alone", f"ran out of GPU memory with the GPU shared ({verdict.message[:200]}); "
                                             f"evaluated again with the GPU's memory to itself"
                                             + self._memory_account_note(verdict))
        except Exception as exc:  # noqa: BLE001 - the judge's own allocation failed (raised again unless so)
            said = f"{type(exc).__name__}: {exc}"
            if self.admission.budget.capacity is None or not OUT_OF_GPU_MEMORY.search(said):
                raise
            result.__dict__.update(before.__dict__)
            result.add_flag("retried_alone", f"the judge ran out of GPU memory with the GPU shared ({said[:200]}; "
                                             f"{raised_where(exc)}); evaluated again with the GPU's memory to itself")
        try:
            self._run_worker(result, task, source, prof, plan=plan, memory_alone=True)
        except Verdict as verdict:
            if not self._out_of_gpu_memory(verdict, result):
                raise
            held = verdict.memory_account
            if held is not None and held.others_beyond(GPU_MEMORY_SHARE, runner_own=self.memory_need(task)):
                # the budget promised this evaluation the GPU's memory, and processes that are not the candidate's
                # held more than the budget leaves outside its reservations for other work than this evaluation
                # (the runner's memory up to the evaluation's own need is the evaluation's, and a candidate can make
                # the runner fill it: a float64 result it asks for by being imprecise): the judge's failure
                reason = (f"ran out of GPU memory with the whole memory budget to itself while other processes held "
                          f"more than {1 - GPU_MEMORY_SHARE:.0%} of the GPU (not the candidate's fault); "
                          + held.describe())
                result.add_flag("judge_error", reason)
                raise Verdict("crashed", reason) from None
            result.add_flag("out_of_memory_alone", "ran out of GPU memory with the GPU's memory to itself"
                                                   + self._memory_account_note(verdict))
            raise

    @staticmethod
    def _out_of_gpu_memory(verdict: Verdict, result: EvalResult) -> bool:
        return bool(OUT_OF_GPU_MEMORY.search(verdict.message or "") or OUT_OF_GPU_MEMORY.search(result.log_tail or ""))

    @staticmethod
    def _memory_account_note(verdict: Verdict) -> str:
        held = verdict.memory_account
        return f"; {held.describe()}" if held is not None else ""

    def _run_worker(self, result: EvalResult, task: Task, source: str, prof: EvalProfile, mode: str = "evaluate",
                    arch: str | None = None, plan: BatchPlan | None = None, memory_alone: bool = False) -> None:
        build_dir = extension_dir(self.cache_dir, source) if result.backend == "cuda" else None
        if build_dir is not None:
            build_dir.mkdir(parents=True, exist_ok=True)
        worker = self._in_flight = self.launcher.take([build_dir] if build_dir is not None else None)
        init_seed = plan.init_seed if plan is not None else secret_seed() % 100_003
        request = {
            "mode": mode, "task": task.to_dict(), "source": source, "device": self.worker_device, "small": self.on_cpu,
            "env": self._candidate_env(build_dir, arch), "init_seed": init_seed, "warmup_seed": secret_seed(),
            "timing": self.reference.timing_config(prof).to_dict(), "timing_method": self.timing_method,
            "scratch": str(worker.scratch), "gpu_compile": self.on_cpu and gpu_compile_enabled(),
            "limits": {"file_bytes": 256 << 20, "cpu_s": int(prof.compile_timeout_s + prof.cpu_correctness_timeout_s
                                                             + prof.timing_timeout_s + 60),
                       "address_space_bytes": (self.memory_limit_bytes * 2) if self.on_cpu else None},
        }
        start_witness = functools.partial(self._start_witness, request, result, prof, task, init_seed, arch)
        witness = start_witness() if self.witness == "always" and mode != "build" else None
        need = (self.admission.budget.capacity or 0) if memory_alone else \
            self.memory_need(task) + (self.witness_memory_need(task) if witness is not None else 0)
        session = Session(worker, self.reference, self.admission, self.settings, result, prof, task, init_seed,
                          need, source, plan, exact_need=self.exact_memory_need(task),
                          build_need=need if memory_alone else self.build_memory_need(task), witness=witness,
                          witness_starter=start_witness if self.witness == "lazy" and mode != "build" else None,
                          witness_need=self.witness_memory_need(task) if self.witness == "lazy" else 0)
        timed = False
        failed: BaseException | None = None  # what ends the session, if anything (its traceback's frames are cleared)
        try:
            session.send(json.dumps(request))
            if mode == "build":
                session.run_build()
            else:
                n_recheck = (2 if prof.name == "full" else 1) if prof.recheck_after_timing else 0
                session.run(prof.trials, prof.outlier_trials, n_recheck)
                timed = True
        except Verdict as verdict:
            failed = verdict
            if self.admission.budget.capacity is not None and (self._out_of_gpu_memory(verdict, result)
                                                               or OUT_OF_GPU_MEMORY.search(worker.log_tail())):
                try:  # while the worker still lives
                    verdict.memory_account = gpu_memory.account(self.device, worker.proc.pid, os.getpid())
                except Exception:  # noqa: BLE001 - an account that cannot be taken changes no verdict
                    verdict.memory_account = None
            if verdict.status == "compile_error":
                errors = summarize_compiler_errors(worker.log_tail(200_000) + "\n" + result.log_tail)
                if errors:
                    first = errors.splitlines()[0].strip()
                    verdict.message = f"{verdict.message[:200]}; first compiler error: {first[:300]}"
                    result.log_tail = "First compiler errors:\n" + errors
            raise
        except BaseException as exc:
            failed = exc
            raise
        finally:
            # before the log is read, so all it printed is there; with the GPU held shared, because a CUDA
            # context's teardown (all its memory freed at once) slows the whole GPU: it must never overlap another
            # evaluation's timed block
            try:
                with self.admission.shared("teardown"):
                    worker.kill()
                    if session.witness is not None:  # started with the evaluation, or lazily by its session
                        session.witness.discard()
                if timed:  # within this evaluation's memory reservation still: the confirmation runs the reference
                    # at full size, and outside it, a multi-GB task's confirmation could run beside an evaluation
                    # given the whole budget (one way L1/17 ran out of memory alone on the H100 at b21456f)
                    self._record_timing(result, task, prof, session)
                    self._offer_baseline(result, prof, session)
            finally:
                try:
                    # the session's tensors are dropped first: a verdict raised in a comparison keeps that frame's
                    # outputs alive through its traceback until the caller has handled it, after this release, and
                    # their blocks then stayed cached here outside every reservation (one way the runner can hold far
                    # more than its reservations: a retried L1/15 row found it holding 64.4 GiB with the budget to
                    # itself, H100, docs/BENCHMARKS.md, twenty-ninth session)
                    session.drop_outputs()
                    drop_traceback_locals(failed)
                    failed = None  # no cycle through this frame
                    with self.admission.shared("teardown"):
                        # the memory this process's allocator keeps cached but unused goes back to the driver as
                        # the reservation ends: the reference's outputs and the copies of the candidate's would
                        # otherwise stay cached here, outside every reservation, where no worker can use them (on
                        # the H200 a handover buffer then failed with out-of-memory under KernelBench's 12-28 GiB
                        # tasks)
                        self.reference.release_cached_memory()
                finally:
                    session.memory_hold.close()
                    self._in_flight = None
                    self._keep_log_and_discard(result, worker, build_dir)

    def _start_witness(self, request: dict, result: EvalResult, prof: EvalProfile, task: Task, init_seed: int,
                       arch: str | None) -> Witness | None:
        """A witness for the evaluation (:mod:`.witness`): a fresh worker given the evaluation's request without
        its candidate (``mode: witness``, no source), or ``None`` where none could be started (noted in
        ``durations["witness_start_failed"]``, never the candidate's verdict)."""
        try:
            started = self.launcher.take()
        except Exception:  # noqa: BLE001 - the evaluation goes on without a witness, as with none asked for
            result.durations["witness_start_failed"] = 1.0
            return None
        ask = {**request, "mode": "witness", "source": "", "scratch": str(started.scratch),
               "env": self._candidate_env(None, arch), "gpu_compile": False}
        # its own result: what it says or fails is the judge's, recorded beside the bound (Witness.report)
        own = EvalResult(task_id=task.id, backend=result.backend, device=result.device, profile=prof.name)
        session = Session(started, self.reference, self.admission, self.settings, own, prof, task, init_seed, 0)
        session.send(json.dumps(ask))
        return Witness(session)

    def witness_memory_need(self, task: Task) -> int:
        """GPU bytes a witness adds to an evaluation of ``task`` (:mod:`.witness`): one eager footprint (the inputs of
        a null call and its outputs) and the snapshots of one block; its CUDA context is counted apart, as every
        worker's (:class:`~kernelgym.judge.launch.WorkerLauncher`)."""
        return self._footprints_need(task, 1, SNAPSHOT_BYTES["gpu"])

    @staticmethod
    def _keep_log_and_discard(result: EvalResult, worker: StartedWorker, build_dir: Path | None) -> None:
        """After the worker is dead: its printed log into ``result.log_tail`` (unless compiler errors took its
        place), its scratch gone, and a build folder that grew beyond a build's size removed."""
        if not result.log_tail.startswith("First compiler errors"):
            printed = worker.log_tail()
            result.log_tail = "\n".join(x for x in (printed, result.log_tail) if x)[-LOG_TAIL_CHARS:]
        worker.discard()
        if build_dir is not None and folder_bytes(build_dir) > BUILD_FOLDER_LIMIT_BYTES:
            remove_tree(build_dir)  # what a build leaves is tens of MB; the rest is not a build's, nor kept

    def _offer_baseline(self, res: EvalResult, prof: EvalProfile, session: Session) -> None:
        """Keep the eager figure this evaluation measured and confirmed in the baselines cache, and offer it to its
        batch (:mod:`kernelgym.judge.batch`), once the session ran to its end (this is called only then: a verdict
        in any trial, check or recheck after the timing raised before) and the evaluation carries no flag, so a
        candidate caught cheating never sets a later evaluation's or a batch-mate's denominator."""
        base = session.baseline
        if res.flags or not str(base.get("how", "")).startswith("interleaved"):
            return
        self.reference.keep_baseline(session.task, base)
        if session.shares_baseline():
            session.plan.offer_baseline(session.plan_baseline_key(), base, self.reference.timing_config(prof).rel_ci)

    def _candidate_env(self, build_dir: Path | None, arch: str | None = None) -> dict[str, str]:
        """Environment settings that depend on the candidate, applied by the worker before it loads anything."""
        env = {}
        if build_dir is not None:
            env["TORCH_EXTENSIONS_DIR"] = str(build_dir)
            arch = arch or self.hardware().compute_capability
            if arch:  # load_inline builds for exactly this GPU, the same way in prebuild and evaluation
                env["TORCH_CUDA_ARCH_LIST"] = arch
        return env

    def idle_worker_pids(self) -> list[int]:
        """Process groups of workers started ahead that have run no candidate code (see :mod:`.launch`)."""
        return self.launcher.idle_pids()

    def abort(self) -> None:
        """From any thread: end the evaluation running now, if any, by killing its worker
        (:meth:`~kernelgym.judge.launch.StartedWorker.abort`). It returns at once as ``crashed`` with the flag
        ``aborted``: a verdict about the caller, not the candidate, never to be recorded. The judge stays usable.
        What closing an evaluator on an interrupt does (:meth:`kernelgym.evaluators.LocalEvaluator.close`)."""
        worker = self._in_flight
        if worker is not None:
            worker.abort()
        if self._builder is not None:
            self._builder.abort()

    def close(self) -> None:
        """Stop the spare workers it asked for, if any. The judge stays usable (the next evaluation starts a
        worker, and asks for its spares again)."""
        self.launcher.close()
        if self._builder is not None:
            self._builder.close()

    # -- after the worker ---------------------------------------------------------------------------------
    def _confirm_baseline(self, task: Task, prof: EvalProfile, base: dict) -> dict:
        """One more block of the eager reference, timed with the worker dead: a candidate that kept the GPU busy
        while the reference was timed (work queued before it was frozen) cannot have slowed the baseline by more
        than the profile's CI target (:func:`~kernelgym.judge.timing.confirmed_baseline_ms`)."""
        import statistics

        from kernelgym.judge.timing import confirmed_baseline_ms

        if self.on_cpu or not base.get("median_ms"):
            return base
        cfg = self.reference.timing_config(prof)
        with self.admission.exclusive():  # alone means alone: no other evaluation's steps on the GPU either
            timer = self.reference.timer(task, prof)
            alone = statistics.median(timer.copied_block(max(cfg.min_runs, cfg.block)))
        confirmed = confirmed_baseline_ms(base["median_ms"], alone, cfg.rel_ci)
        if confirmed != base["median_ms"]:
            return {**base, "median_ms": confirmed, "how": f"{base.get('how')}, lowered by a block timed alone"}
        return base

    def _record_timing(self, res: EvalResult, task: Task, prof: EvalProfile, session: Session) -> None:
        from kernelgym.judge.timing import summarize

        base = session.baseline
        if base.get("how") != "batch":  # a batch's shared figure was confirmed by the evaluation that measured it
            base = session.baseline = self._confirm_baseline(task, prof, base)
        summary = summarize(session.candidate_times)
        compared_floor = COMPARED_FLOOR * min(session.compared_ms) if session.compared_ms else 0.0
        res.runtime_ms = max(summary["median_ms"], session.runner_bound_ms, compared_floor)
        res.runtime_spread = {**{k: summary[k] for k in ("iqr_ms", "ci95_ms", "n")},
                              "reported_median_ms": summary["median_ms"], "runner_bound_ms": session.runner_bound_ms,
                              **session.bound_inputs,
                              "compared_floor_ms": compared_floor, "compared_calls": len(session.compared_ms),
                              "probes_compared": sum(session.probes_compared.values()),
                              "fastest_check_ms": min(session.check_ms) if session.check_ms else None,
                              "baseline": base.get("how"), "baseline_ci95_ms": base.get("ci95_ms"),
                              "baseline_n": base.get("n")}
        res.baseline_ms = base["median_ms"]
        res.timing_meaningful = not self.on_cpu
        if res.runtime_ms and res.baseline_ms:
            res.speedup = res.baseline_ms / res.runtime_ms
        if self.on_cpu or not res.runtime_ms:
            return
        if prof.compile_baseline:
            compiled = self.reference.baseline_ms(task, prof, kind="compile")
            res.compile_baseline_ms = compiled.get("median_ms")
            if res.compile_baseline_ms:
                res.speedup_compile = res.compile_baseline_ms / res.runtime_ms
        self._record_efficiency(res, task)

    def _record_efficiency(self, res: EvalResult, task: Task) -> None:
        """IOU and MFU over this GPU's measured ceilings; beyond the vendor's peak is physically impossible."""
        from kernelgym.hardware import precision_of

        seconds = res.runtime_ms / 1e3
        measured, vendor = self.reference.ceilings(alone=self.admission.exclusive), self.hardware().peaks
        precision = precision_of(task.dtype, task.precision)
        for field_name, formula, key in (("iou", "bytes", "bandwidth_tbs"), ("mfu", "flops", precision)):
            amount = task.evaluate_formula(formula)
            ceiling = measured.get(key) or vendor.get(key)
            if not amount or not ceiling:
                continue
            rate = amount / seconds / 1e12
            value = rate / ceiling
            if vendor.get(key) and rate > 1.05 * vendor[key]:
                res.add_flag("physically_impossible", f"{formula} rate {rate:.3g} T/s exceeds the GPU's peak "
                                                      f"{vendor[key]:.3g}: the measured time cannot be real")
                raise Verdict("rejected", "rejected: the measured runtime is faster than the hardware allows "
                                           f"({field_name.upper()} {100 * value:.0f}% of the measured ceiling)")
            if value > 1.0:
                res.add_flag("above_measured_ceiling", f"{field_name.upper()} {100 * value:.0f}% of the measured "
                                                       f"{key} ceiling: a measurement or task-formula error")
                continue
            setattr(res, field_name, value)

    # -- reference side, for callers (lint, benchmarks) ---------------------------------------------------------
    def baseline_ms(self, task: Task, prof: EvalProfile, kind: str = "eager") -> dict:
        """The reference's timing alone (:meth:`ReferenceSide.baseline_ms`)."""
        return self.reference.baseline_ms(task, prof, kind)

    def cached_baseline(self, task: Task, kind: str = "eager") -> dict | None:
        return self.reference.cached_baseline(task, kind)

    def ceilings(self) -> dict:
        return self.reference.ceilings(alone=self.admission.exclusive)

    def hardware_json(self) -> str:
        """The hardware spec of this judge's device, as JSON text (shown to the policy)."""
        return self.hardware().to_json()

    def hardware(self):
        from kernelgym.hardware import detect

        if self._hardware is None:
            self._hardware = detect(self.device)
        return self._hardware

    # -- description --------------------------------------------------------------------------------------
    def describe_device(self) -> str:
        if self.on_cpu:
            return "cpu (Triton interpreter)"
        import torch

        return f"{self.device} ({torch.cuda.get_device_name(self.device)})"

    def versions(self) -> dict[str, str]:
        if self._versions is None:
            import platform

            import torch

            try:
                import triton

                triton_version = triton.__version__
            except ImportError:  # pragma: no cover
                triton_version = "missing"
            from kernelgym._version import __version__

            self._versions = {"kernelgym": __version__, "torch": torch.__version__, "triton": triton_version,
                              "python": platform.python_version()}
        return self._versions

    @staticmethod
    def _ok_message(result: EvalResult) -> str:
        n = len(result.trials)
        if result.speedup is None:
            return f"correct on {n} trials"
        qualifier = "" if result.timing_meaningful else " (CPU interpreter timing: not meaningful)"
        return (f"correct on {n} trials; {result.runtime_ms:.4g} ms vs eager {result.baseline_ms:.4g} ms: "
                f"speedup {result.speedup:.3g}x{qualifier}")
