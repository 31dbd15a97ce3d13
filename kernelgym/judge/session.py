"""One conversation between the runner and one sandboxed worker, driven by the runner through the stage table.

The session sends one command at a time and reads the worker's answer under two deadlines: the current stage's
(:data:`~kernelgym.judge.protocol.STAGES`, entered in order, each at most once, by this side only) and the
evaluation's total. Waiting for the GPU (:class:`~kernelgym.judge.admission.GpuAdmission`) moves both deadlines
on: it is never charged to the candidate, and it is bounded by the other evaluations' own deadlines.

Every output that can earn reward is compared here with the reference's (:class:`~kernelgym.judge.reference.
ReferenceSide`): each trial, the profiled forward, and one call, chosen after the fact, of every block of timed
calls (blocks are sized so the worker can keep a snapshot of each call). Seeds are drawn here, one command at a
time. While the reference is timed, the worker is frozen (``SIGSTOP`` on its process group).
"""

from __future__ import annotations

import contextlib
import functools
import json
import secrets
import statistics
import time
from typing import Callable

from kernelgym.judge import policy, sandbox, streams
from kernelgym.judge.activity import merge as merge_spans
from kernelgym.judge.admission import GpuAdmission, SlicedHold
from kernelgym.judge.correctness import TrialCheck, all_finite, check_description, check_layout, compare_outputs, \
    describe
from kernelgym.judge.degeneracy import FLAG as DEGENERATE, REASON as DEGENERATE_REASON
from kernelgym.judge.degeneracy import DegeneracyWatch, output_fingerprint
from kernelgym.judge.frames import check_frame
from kernelgym.judge.inputs import NO_OUTLIERS, OUTLIERS, SIGNED_OUTLIERS, WIDE_OUTLIERS, call_seed, secret_seed
from kernelgym.judge.launch import StartedWorker
from kernelgym.judge.process import LOG_TAIL_CHARS, cpu_seconds, descendants, folder_bytes, held_file_bytes, \
    scheduler_ns, tree_usage
from kernelgym.judge.profile import TORCH_COPY_SHARE
from kernelgym.judge.profiles import EvalProfile
from kernelgym.judge.protocol import STAGE_NAMES, Command, Deadline, Event, FrameReader, ProtocolError, stage
from kernelgym.judge.reference import ReferenceSide
from kernelgym.judge.result import EvalResult
from kernelgym.judge.timing import SEAL_EVENT
from kernelgym.judge import device_transfer
from kernelgym.judge.device_transfer import DeviceTransferUnavailable, device_index
from kernelgym.judge.transfer import OutputFile, expected_nbytes, tensor_from_raw, transfer_dir
from kernelgym.judge.verdict import Verdict
from kernelgym.judge.wallclock import EXTRA_BLOCKS, LATE_NULL_BLOCKS, NULL_BLOCKS, NULL_WARMUP_BLOCKS, BlockClock, \
    check_lower_bound_ms, late_null_overhead_ms, lower_bound_ms, mismatch, null_overhead_ms, rejection_overhead_ms, \
    step_report
from kernelgym.judge.witness import WITNESS_MEMORY_WAIT_S, WITNESS_TRIGGER, witness_overhead_ms
from kernelgym.tasks import Task

#: a task whose FLOPs are at least this many times its bytes is compute-heavy: torch's copies in its forward may
#: re-lay out each input once beyond the copy rule's share of the outputs (:meth:`Session._relayout_bytes`)
COMPUTE_HEAVY = 2

_RANDOM = secrets.SystemRandom()
#: slowest copy rate allowed for an output (worker writes, runner reads), used to extend the deadlines
TRANSFER_BYTES_PER_S = 250e6
#: GPU (CPU) memory the worker may hold in snapshots of one block's outputs: blocks are split to fit
SNAPSHOT_BYTES = {"gpu": 1 << 30, "cpu": 256 << 20}
#: unused memory the runner's caching allocator may keep past the correctness stage (more is given back before the
#: timing stage, :meth:`Session._gpu_stages`)
RELEASE_CACHE_BYTES = 1 << 30
#: how long one wait for a frame from the worker lasts before the runner looks at the deadlines and the memory
POLL_S = 0.5
#: a wait that came back this much later than due means the runner's own thread was held (:meth:`Session.expect`)
STALL_GRACE_S = 2.0
#: the most the deadlines of one evaluation move on for such stalls
STALL_CREDIT_S = 120.0
#: outputs up to this size are compared for every block of timed calls; larger ones for a random share of blocks
CHECK_EVERY_BLOCK_BYTES = 64 << 20
#: timed calls compared per evaluation at the least, however large the outputs (each in a block of its own when the
#: random checks found too few), and the share of the fastest compared call's time the runtime never goes below:
#: calls that skip work go unseen where they are not compared, but the compared calls, picked after their blocks,
#: did the work, so a candidate that made its median fast by skipping work is timed by them (within 10%)
MIN_COMPARED_CALLS = 2
COMPARED_FLOOR = 0.9
#: the worker's memory is checked while the runner waits for it (every 0.5 s) and, at most this often, when a frame
#: arrives: a worker that answers every command fast is checked as well
MEMORY_CHECK_EVERY_S = 0.5
#: threads of a worker's processes together, checked with its memory: an honest worker runs a few dozen (CUDA's,
#: the profiler's, a CUDA build's compiler jobs); a candidate's idle OpenMP pool held most of the host's process
#: ids, so that other evaluations could not start (a red-team finding)
MAX_WORKER_THREADS = 1024
#: after these frames the worker waits for the runner's next command; CPU it uses until then is work outside its
#: calls (a native thread, which no Python frame shows, burned two cores beside a neighbour: a red-team finding)
IDLE_AFTER = frozenset({Event.READY, Event.LOADED, Event.COMPILED, Event.OUTPUTS, Event.TENSOR, Event.TIMING_READY,
                        Event.TIMING})
#: CPU seconds a waiting worker may use in all, plus this share of the time it waited (interpreter teardown,
#: a thread pool spinning down after an operator, the GPU driver's own threads)
IDLE_CPU_ALLOWANCE_S, IDLE_CPU_SHARE = 0.5, 0.25
#: compile pauses granted per build (:meth:`Session.build`); more than any honest first forward needs (Triton
#: autotuning is bounded to 8 configs per kernel), few enough that announcing compilations cannot keep an evaluation
#: waiting for the GPU again and again
MAX_COMPILE_PAUSES = 64
#: steps that are the judge's own work, not the candidate's: computing the reference's outputs (also its float64
#: result and the wide trial's moved results) and comparing. Their time moves the deadlines on (:meth:`Session.step`),
#: as a wait for the GPU does: a stage's limit bounds the candidate, and the judge's share of a stage grows with what
#: the judge has to do beside other evaluations (H200, c27665c: a float64 result computed on the host for 154 s held
#: the reference's numerics for as long, and an honest evaluation's correctness stage timed out behind it); and a
#: witness's null blocks (kernelgym.judge.witness)
JUDGE_OWN_STEPS = frozenset({"reference", "exact_reference", "compare", "witness_blocks"})
#: longest an evaluation waits for the memory of its float64 reference on the GPU (:meth:`Session.exact_room`), off
#: its GPU hold, before the reference runs on the host instead: L1/15's took 58 s there on the H100 and 154 s on the
#: H200, against tens of milliseconds on the GPU, while evaluations on the GPU end every few seconds
EXACT_MEMORY_WAIT_S = 30.0


class ExactRoom(contextlib.ExitStack):
    """What one comparison holds of the memory budget for its float64 results (:meth:`Session.exact_room`), and
    whether it holds it."""

    reserved = False


class Settings:
    """What a session needs to know of its judge: device kind, limits, the coverage required; ``worker_device``:
    the judge's device by its workers' name for it (``cuda:0`` where a worker sees the judge's GPU alone,
    :mod:`kernelgym.judge.gpu_isolation`; ``None``: the runner's name), which their outputs must report."""

    def __init__(self, on_cpu: bool, memory_limit_bytes: int, min_kernel_coverage: float,
                 worker_device: str | None = None):
        self.on_cpu, self.memory_limit_bytes, self.min_kernel_coverage = on_cpu, memory_limit_bytes, min_kernel_coverage
        self.worker_device = worker_device


class Session:
    """One conversation with one worker: commands out, frames in under deadlines, every output compared here."""

    def __init__(self, worker: StartedWorker, reference: ReferenceSide, admission: GpuAdmission, settings: Settings,
                 result: EvalResult, prof: EvalProfile, task: Task, init_seed: int, memory_need: int,
                 source: str = "", plan=None, exact_need: int = 0, build_need: int | None = None,
                 witness=None, witness_starter: Callable | None = None, witness_need: int = 0):
        self.worker, self.reference, self.admission, self.settings = worker, reference, admission, settings
        self.result, self.prof, self.task, self.init_seed, self.memory_need = result, prof, task, init_seed, memory_need
        #: GPU bytes held until the candidate is built (the rest of :attr:`memory_need` after, :meth:`grow_memory`;
        #: the budget holds no more than the whole at first)
        self.build_need = memory_need if build_need is None else build_need
        self._reservation = None
        self.source = source
        self.plan = plan  # a BatchPlan (kernelgym.judge.batch) whose init seed is ``init_seed``, or None
        self.exact_need = exact_need  # GPU bytes of the float64 reference beside the evaluation (exact_room)
        #: a :class:`~kernelgym.judge.witness.Witness` timing null calls in the timing window, or ``None``; a lazy
        #: one is made by ``witness_starter()`` (it may return ``None``) where the bound asks for it, its GPU memory
        #: (``witness_need`` bytes) reserved then
        self.witness = witness
        self._witness_starter = witness_starter
        self.witness_need = witness_need
        #: the candidate blocks (indices in :attr:`clock`'s) that had a counted witness block right before them
        self._witnessed: list[int] = []
        #: the described outputs of the null calls (``null``'s SPECS), for a witness started later
        self.null_specs: str | None = None
        self.reader = FrameReader(worker.read_fd)
        self.stage_name, self.stage_started = "startup", time.monotonic()
        self.deadline = self.stage_started + self.limit("startup")
        self.total_deadline = self.stage_started + self.total_limit()
        self.candidate_times: list[float] = []
        self.baseline: dict = {}
        self.runner_bound_ms = 0.0
        #: what the bound was made of (reported for calibration, benchmarks/wall_bound.py): the candidate's fastest
        #: block's wall time per call by the runner's clock, and the reference's per-call overhead subtracted
        self.bound_inputs: dict = {}
        #: the per-call overhead measured on null calls in the worker before its candidate loaded (ms), if measured
        self.null_overhead_ms: float | None = None
        #: each counted null block's wall per call less its median (ms): how much the overhead wandered
        self.null_overheads_ms: list[float] = []
        #: a null call's own synchronized time (ms; the median over the counted blocks): the host latency of a call
        #: that launches nothing, measured before the candidate loaded (:meth:`check_wall_clock`)
        self.null_call_ms: float | None = None
        #: the worker's per-step host times (ms per call, :func:`~kernelgym.judge.wallclock.step_report`) of each
        #: null block and of each of the candidate's timed blocks, in order: diagnostics, never judged by
        self.null_steps: list[dict | None] = []
        self.block_steps: list[dict | None] = []
        #: the late null blocks (:meth:`_late_null_round`): the runner's clock on them, how many are still to run,
        #: and the worker's per-step host times of each (a diagnostic)
        self.late_clock: BlockClock | None = None
        self._late_wanted = 0
        self.late_null_steps: list[dict | None] = []
        self.late_ready_ms: list[float] = []  # per late null block, the wait for its timing_ready frame (ms)
        self._early_refs: tuple | None = None  # (seed, outputs) of the reference, computed for the null calls
        self._seeds: dict[tuple, int] = {}  # (trial kind, index) -> its secret seed, outside a batch plan
        self.compared_ms: list[float] = []  # the reported times of the timed calls whose outputs were compared
        self._compared_at: list[int] = []  # their indices in self.clock.times
        #: the outlier kinds the trials found in the task's domain, for probes in timed blocks (probe_for_block)
        self._probe_kinds: list[int] = []
        self._block_probe: tuple[int, int] = (-1, NO_OUTLIERS)  # (call, outlier kind) of the block being timed
        self._probed_blocks: list[bool] = []  # whether each timed block (the clock's, in order) carried a probe
        self.probes_compared: dict[int, int] = {}  # outlier kind -> probes of it compared
        self._blocks_timed = 0  # the candidate's timed blocks so far
        self._probe_plan: dict[int, int] | None = None  # block number -> outlier kind of its probe (drawn once)
        self.check_ms: list[float] = []  # the runner's wall time of each check's answer, up to its header
        #: the last candidate block's seals, one per call (:meth:`_seals`)
        self._block_seals: list[dict] = []
        self._memory_checked = 0.0  # time.monotonic() of the last memory check
        self._first_draw: tuple | None = None  # random outputs: (seed, outputs) of the first standard trial
        #: per output, whether the reference's shares memory with an input (:meth:`_aliasing_refused`), once asked
        self._reference_aliases: tuple | None = None
        self._idle_since: tuple | None = None  # (wall, worker CPU) when the worker began to wait for a command
        self._worker_pids: list[int] = []
        self.idle_s = self.idle_cpu_s = 0.0
        self._repeating = False
        self._check_sent: float | None = None
        self.out_bytes = 0
        self.waited_s = 0.0  # time spent waiting for the GPU (:meth:`gpu`): moves deadlines, never spends budgets
        self._step_s: dict[str, float] = {}  # each step's time so far, unrounded (:meth:`step`)
        self._holding_alone = False  # holding the GPU alone now: steps inside need no hold of their own
        self._gpu_hold: tuple | None = None  # (ExitStack, alone, label) of the GPU hold held now (:meth:`off_gpu`)
        self._in_judge_step = False  # inside one of JUDGE_OWN_STEPS now (:meth:`step`)
        #: the evaluation's GPU-memory reservation, entered by :meth:`run` and closed by the runner only once the
        #: worker is dead (its memory freed): a dying worker's memory is never lent to the next evaluation
        self.memory_hold = contextlib.ExitStack()
        self._degeneracy = DegeneracyWatch()  # are the reference's outputs the same for every seed?
        self._own_launches = None  # launches of the candidate's kernels in the last forward compared (worker's count)
        self._host_reads = None  # calls handing tensor values to host code in that forward (worker's count)
        self._stall_credit = STALL_CREDIT_S  # seconds the deadlines may still move on for this thread's stalls
        self._lent_files: set[str] = set()  # output files this side made for the worker to fill (not its memory)

    # -- limits ------------------------------------------------------------------------------------------------
    def limit(self, name: str) -> float:
        prof = self.prof
        if name == "compile" and self.result.backend == "cuda":
            return prof.cuda_compile_timeout_s
        if name in ("correctness", "recheck") and self.settings.on_cpu:
            return prof.cpu_correctness_timeout_s
        return float(getattr(prof, stage(name).limit))

    def total_limit(self) -> float:
        return sum(self.limit(name) for name in STAGE_NAMES[2:])

    def enter(self, name: str) -> None:
        """Start stage ``name``: only forwards in the stage table, never the same one twice."""
        if STAGE_NAMES.index(name) <= STAGE_NAMES.index(self.stage_name):
            raise RuntimeError(f"stage {name} after {self.stage_name}")  # a judge bug, never the candidate's doing
        now = time.monotonic()
        self.result.durations[self.stage_name] = round(now - self.stage_started, 3)
        self.stage_name, self.stage_started = name, now
        self.deadline = now + self.limit(name)
        self.result.stage = name if name != "recheck" else self.result.stage

    def postpone(self, seconds: float) -> None:
        """Move both deadlines on by ``seconds`` (time spent waiting for the GPU or moving outputs)."""
        self.deadline += seconds
        self.total_deadline += seconds

    def _forgive_runner_stall(self, polled: float) -> float:
        """After a poll of the worker's channel that began at ``polled`` and found nothing: where it came back more
        than :data:`STALL_GRACE_S` later than it was due, this thread was held, not the worker slow (another
        evaluation's work holding the interpreter lock: a red-team helper's quadratic text stalled the runner for
        a minute and an honest candidate timed out), so the deadlines move on by the excess, up to
        :data:`STALL_CREDIT_S` in all. Returns the time of this check (the next poll's start)."""
        now = time.monotonic()
        late = now - polled - POLL_S
        if late > STALL_GRACE_S and self._stall_credit > 0:
            credit = min(late, self._stall_credit)
            self._stall_credit -= credit
            self.postpone(credit)
        return now

    # -- I/O -----------------------------------------------------------------------------------------------------
    def send(self, *words) -> None:
        self._end_idle()
        try:
            self.worker.proc.stdin.write((" ".join(str(w) for w in words) + "\n").encode())
            self.worker.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass  # the worker is gone; reading its channel reports how

    def expect(self, *events: str) -> dict:
        """The next frame, which must be one of ``events`` (an error frame becomes its verdict)."""
        polled = time.monotonic()
        while True:
            end = min(self.deadline, self.total_deadline)
            try:
                header = self.reader.read_header(min(end, time.monotonic() + POLL_S))
                check_frame(header)  # only what the worker's own code sends (kernelgym.judge.frames)
                if time.monotonic() - self._memory_checked >= MEMORY_CHECK_EVERY_S:
                    self._check_memory()  # also a worker that answers every command fast (a red-team finding)
                break
            except Deadline:
                polled = self._forgive_runner_stall(polled)
                end = min(self.deadline, self.total_deadline)
                if time.monotonic() >= end:
                    where = self.where_stuck()
                    if end == self.total_deadline:
                        raise Verdict("timeout", f"{self.stage_name} stage: the evaluation exceeded its total limit "
                                                 f"of {self.total_limit():.0f} s{where}; the worker was killed") from None
                    raise Verdict("timeout", f"{self.stage_name} stage exceeded its {end - self.stage_started:.0f} s "
                                             f"limit{where}; the worker was killed") from None
                self._check_memory()
            except EOFError:
                raise self._died() from None
            except ProtocolError as exc:
                raise Verdict("crashed", f"the worker sent a malformed message ({exc})") from None
        if header.get("event") in events:
            if header.get("event") in IDLE_AFTER:
                self._begin_idle(header.get("event"))
            return header
        if header.get("event") == Event.ERROR:
            status = header.get("status") if header.get("status") in ("compile_error", "runtime_error") \
                else "runtime_error"
            self.result.log_tail = str(header.get("traceback", ""))[-LOG_TAIL_CHARS:]
            raise Verdict(status, f"{header.get('where', self.stage_name)}: {header.get('message', '')}")
        raise Verdict("crashed", f"the worker sent {header.get('event')!r} where "
                                 f"{' or '.join(repr(e) for e in events)} was due")

    def _begin_idle(self, event: str) -> None:
        """The worker now waits for a command: note the time and its CPU so far (its processes are looked up again
        when it has loaded the candidate and when it is ready to time)."""
        if not self._worker_pids or event in (Event.LOADED, Event.TIMING_READY):
            self._worker_pids = descendants(self.worker.proc.pid)
        self._idle_since = (time.monotonic(), cpu_seconds(self._worker_pids))

    def _end_idle(self) -> None:
        """A command goes out: add the wait to the worker's idle time and the CPU it used meanwhile; past the
        allowance (:data:`IDLE_CPU_ALLOWANCE_S` plus :data:`IDLE_CPU_SHARE` of the waits) it is rejected."""
        if self._idle_since is None:
            return
        started, cpu = self._idle_since
        self._idle_since = None
        self.idle_s += time.monotonic() - started
        self.idle_cpu_s += max(0.0, cpu_seconds(self._worker_pids) - cpu)
        self.result.durations["worker_waiting"] = round(self.idle_s, 3)
        self.result.durations["worker_cpu_while_waiting"] = round(self.idle_cpu_s, 3)
        if self.idle_cpu_s > IDLE_CPU_ALLOWANCE_S + IDLE_CPU_SHARE * self.idle_s:
            raise self.reject("background_work", f"the worker used {self.idle_cpu_s:.1f} s of CPU while it waited "
                                                 f"{self.idle_s:.1f} s for the judge's commands: work outside its "
                                                 f"calls (a thread left running?)")

    def where_stuck(self) -> str:
        """`` (stuck at candidate.py line N: <code>)`` for a timeout message, from the runner's copy of the text; ``""``
        where the line cannot be had. A hint only, read from the worker's log (the candidate's text as much as the
        worker's): whatever that holds, the timeout stays the verdict."""
        try:
            number = self.worker.stuck_line()
        except Exception:  # noqa: BLE001 - a hint that failed changes no verdict
            return ""
        if number is None:
            return ""
        lines = self.source.splitlines()
        code = lines[number - 1].strip()[:120] if 0 < number <= len(lines) else ""
        return f" (stuck at candidate.py line {number}{': ' + code if code else ''})"

    def _check_memory(self) -> None:
        """The worker's resident memory, the files in its scratch and transfer folders (a tmpfs's pages are host
        memory no RSS shows) and in any other folder it may write (a CUDA build folder: disk that outlives the
        evaluation, filled past the limit by a red-team candidate), and the memory-backed files its processes hold
        open (``memfd_create``, ``/dev/shm``, deleted files: :func:`~kernelgym.judge.process.held_file_bytes`)
        against the memory limit; the output file this side made and lent is not the worker's."""
        self._memory_checked = time.monotonic()
        lent = frozenset(self._lent_files)
        pids = descendants(self.worker.proc.pid)  # one scan of /proc for every count
        rss, threads = tree_usage(pids)
        rss += (folder_bytes(self.worker.scratch, exclude=lent) + folder_bytes(self.worker.xfer, exclude=lent)
                + held_file_bytes(pids) + sum(folder_bytes(folder) for folder in self.worker.writable))
        if rss > self.settings.memory_limit_bytes:
            raise Verdict("crashed", f"the worker used {rss / 2**30:.1f} GiB of host memory and scratch files, over "
                                      f"the {self.settings.memory_limit_bytes / 2**30:.1f} GiB limit; it was killed")
        if threads > MAX_WORKER_THREADS:  # idle native threads: no CPU, no Python, but the host's process ids
            raise Verdict("crashed", f"the worker ran {threads} threads, over the limit of {MAX_WORKER_THREADS} (every "
                                      f"thread takes one of the host's process ids); it was killed")

    def _died(self) -> Verdict:
        try:
            code = self.worker.proc.wait(timeout=5)
        except Exception:  # noqa: BLE001
            code = None
        how = sandbox.describe_exit(code, self.worker.sandboxed)
        if self.worker.aborted:
            reason = "the evaluation was aborted by its caller (Judge.abort: the evaluator was closed under it)"
            self.result.add_flag("aborted", reason)
            return Verdict("crashed", f"{reason}; no verdict on the candidate")
        if self.stage_name == "startup":  # before any candidate code ran: the judge's fault, said plainly
            last = " | ".join(self.worker.log_tail().strip().splitlines()[-3:])
            reason = f"the judge's worker process {how} while starting, before the candidate was loaded"
            # flagged, so that a trainer drops the sample and a dataset leaves it out (a task whose reference fails
            # to import ended here with reward 0 and no flag: user QA, round 4)
            self.result.add_flag("judge_error", reason)
            return Verdict("crashed", f"{reason} (not the candidate's fault): {last[:400]}")
        return Verdict("crashed", f"the worker process {how} during the {self.stage_name} stage (the candidate "
                                   f"ended or crashed its process)")

    def reject(self, name: str, reason: str) -> Verdict:
        self.result.add_flag(name, reason)
        self.send(Command.STOP)
        return Verdict("rejected", f"rejected: {reason}")

    # -- the stages ----------------------------------------------------------------------------------------------
    def run(self, n_standard: int, n_outlier: int, n_recheck: int) -> None:
        """Every stage after start-up, in the table's order; raises the :class:`Verdict` of the first failure."""
        try:
            self.expect(Event.READY)
            asked = time.monotonic()
            self._reservation = self.memory_hold.enter_context(self.admission.memory(self.memory_need,
                                                                                     first=self.build_need))
            self.worker.end_context_hold()  # the reservation's need includes the worker's CUDA context
            self._memory_waited(time.monotonic() - asked)
            with streams.own(self.reference.device):  # not behind the other evaluations' work (judge/streams.py)
                self._gpu_stages(n_standard, n_outlier, n_recheck)
        finally:
            self.result.durations[self.stage_name] = round(time.monotonic() - self.stage_started, 3)
            self.result.durations["gpu_wait"] = round(self.waited_s, 3)

    def drop_outputs(self) -> None:
        """Forget the outputs the session keeps between its steps (the null calls' reference outputs, a random
        task's first draw), so their memory can go back before the session object itself is dropped."""
        self._early_refs = None
        self._first_draw = None

    def _memory_waited(self, waited: float) -> None:
        """Count ``waited`` seconds spent waiting for memory: the deadlines move on, reported as ``gpu_wait``
        (beside the lock's waits, not hidden in a stage) and as its part ``memory_wait``."""
        self.postpone(waited)
        self.waited_s += waited
        self.result.durations["memory_wait"] = round(self.result.durations.get("memory_wait", 0.0) + waited, 3)

    def grow_memory(self) -> None:
        """Hold the whole of :attr:`memory_need` from here on (the build held :attr:`build_need`), waiting for it
        outside every GPU hold; the worker is idle meanwhile (it has answered ``loaded``)."""
        if self._reservation is not None:
            self._memory_waited(self._reservation.grow())

    def _gpu_stages(self, n_standard: int, n_outlier: int, n_recheck: int) -> None:
        """The GPU is held one step at a time (:meth:`gpu`): shared for the build and first forward, each trial and
        the profiled forward; alone for the timing warm-up and the timing rounds (a block of each timer), in slices
        of about :data:`~kernelgym.judge.admission.TIMING_HOLD_SLICE_S`. So a timer waits for the steps in flight,
        not for whole stages of other evaluations, and sharers resume between its slices."""
        self.enter("compile")
        with self.gpu(label="null_calls"), self.step("null_calls"):
            self.measure_null_overhead()
        self.build()
        self.grow_memory()  # compiled: the trials and the timing need the whole reservation
        self.enter("correctness")
        wide = bool(n_outlier) and self.task.dtype in WIDE_TASK_DTYPES
        order = trial_order(n_standard, n_outlier, wide)
        if order[:1] != [(0, "standard")]:
            # the null calls' reference outputs serve the first standard trial only where it comes first: held
            # through the trials before it, they were one more output-sized tensor in each one's memory
            self._early_refs = None
        for i, kind in order:
            with self.gpu(label="trial"), self.step("trials"):
                if kind == "wide":
                    self.wide_trial(i, "wide")
                else:
                    self.trial(i, kind)
        if self.task.check == "statistical" and self._first_draw is not None:
            with self.gpu(label="trial"), self.step("trials"):
                self.trial(0, "repeat")  # the first trial's inputs again: is the randomness fresh?
        with self.gpu(label="profile"), self.step("profiled_forward"):
            self.profile()
        if self.prof.compile_baseline and not self.settings.on_cpu:
            with self.gpu(label="compile_baseline"):
                self.reference.compiled(self.task)  # torch.compile's own compilation, outside any exclusive hold
        with self.gpu(label="release_cache"):
            # the allocator caches freed blocks per stream: the trials' (this thread's stream) could serve none of
            # the timing's (the default stream), and L1/15's runner reserved 59.5 GiB for a 32 GiB peak (H100)
            self.reference.release_cached_memory(min_unused=RELEASE_CACHE_BYTES)
        self.enter("timing")
        self.time_against_reference()
        if n_recheck:
            self.enter("recheck")
            for i in range(n_recheck):
                with self.gpu(label="recheck"), self.step("trials"):
                    index = n_standard + n_outlier + 1 + i
                    # the last on wide inputs where they apply: a forward that dropped to half precision once the
                    # trials were over (it can count its calls) is wrong there (a seventh red-team helper)
                    if not (wide and i == n_recheck - 1 and self.wide_trial(index, "recheck")):
                        self.trial(index, "recheck")
        self.send(Command.STOP)

    def measure_null_overhead(self) -> None:
        """Before the candidate loads (the worker still runs only the judge's code), :data:`NULL_BLOCKS` blocks of
        null calls (``null``: a forward that only allocates outputs shaped as the reference's, every other step of a
        timed block as for the candidate) by this side's clock: the per-call overhead the runner's bound on the
        candidate's time subtracts (:func:`kernelgym.judge.wallclock.null_overhead_ms`), measured in the process and
        under the host load that the candidate's blocks will see. The reference's outputs for the first standard trial
        give the shapes, and are kept for that trial."""
        seed = self.secret("standard", 0)
        refs = self._reference_outputs(seed, NO_OUTLIERS)
        self._early_refs = (seed, refs)
        out_bytes = sum(r.numel() * r.element_size() for r in refs if hasattr(r, "element_size"))
        calls = self.block_calls(out_bytes)
        specs = self.null_specs = json.dumps([describe(r) for r in refs], separators=(",", ":"))
        if self.witness is not None:
            self.witness.specs = specs  # the witness's null calls return the same outputs (witness.py)
        clock = BlockClock(lambda n: self.null_block(n, specs))  # the runner's clock, as on the candidate's blocks
        for _ in range(NULL_WARMUP_BLOCKS + NULL_BLOCKS):
            clock(calls)
        walls, medians = clock.per_call_ms, clock.block_medians()
        counted = list(zip(walls[NULL_WARMUP_BLOCKS:], medians[NULL_WARMUP_BLOCKS:]))
        self.null_overhead_ms = null_overhead_ms([w for w, _ in counted], [m for _, m in counted])
        self.null_overheads_ms = [round(w - m, 4) for w, m in counted]
        self.null_call_ms = statistics.median(m for _, m in counted) if counted else None

    def null_block(self, calls: int, specs: str, late: bool = False) -> list[float]:
        """One block of ``calls`` null calls (``null``) returning outputs of ``specs`` (the reference's, described);
        its times, checked. Run by the candidate's worker before its candidate loads, and by a witness
        (:mod:`kernelgym.judge.witness`), which never loads one; ``late``: by the candidate's worker in the timing
        stage (:meth:`_late_null_round`), where a flag in its frames is the candidate's doing, a rejection, and the
        worker answers the command with a ``timing_ready`` frame once the block is set up (:meth:`_late_null_ready`)."""
        secret = secret_seed()  # the block's seed, kept here: each call's is sent as a candidate block's is
        self.send(Command.NULL, calls, call_seed(secret, 0), specs)
        if late:
            self._late_null_ready()
        # the null calls' seals: the judge's own code, nothing to check
        header, _ = self._read_block(calls, null=not late, seeds=lambda index: call_seed(secret, index))
        if not late:
            self._null_frame_unflagged(header)
        (self.late_null_steps if late else self.null_steps).append(step_report(header.get("step_ms")))
        return self._block_times(header, calls)

    def _late_null_ready(self) -> None:
        """Wait for a late null block's ``timing_ready`` frame (``Worker._late_null_ready``) and record how long that
        took (``late_ready_ms``): the runner's clock on the block counts from there (:meth:`late_null_overheads`).
        Candidate code that ran before the worker read the ``null`` line (round 45: a finalizer of the collection the
        worker runs between commands peeked at the line and slept before a null block alone) is left out. A flag in
        the frame (a function the block calls replaced, a thread of the candidate's) is the candidate's rejection."""
        started = time.perf_counter()
        header = self.expect(Event.TIMING_READY)
        self.late_ready_ms.append((time.perf_counter() - started) * 1e3)
        flags = integrity_flags(header)
        if flags:
            raise self.reject(str(flags[0][0]), f"before a late null block: {flags[0][1]}")

    def expect_ready(self) -> None:
        """Wait for the worker's ``ready`` (its start-up done, nothing of a candidate run)."""
        self.expect(Event.READY)

    def _null_frame_unflagged(self, header: dict) -> None:
        """A null block's frame carries the worker's integrity flags as a candidate block's does (the same steps),
        but no candidate code has run yet: a flag there is the judge's own fault, never the candidate's rejection."""
        flags = integrity_flags(header)
        if flags:
            reason = f"the judge's worker flagged itself before the candidate was loaded: {flags[0][1]}"
            self.result.add_flag("judge_error", reason)
            self.send(Command.STOP)
            raise Verdict("crashed", f"internal judge error (not the candidate's fault): {reason}"[:500])

    def snapshot_calls(self, out_bytes: int) -> int:
        """The most calls of a timed block whose snapshots stay within :data:`SNAPSHOT_BYTES` (at least one)."""
        return max(1, SNAPSHOT_BYTES["cpu" if self.settings.on_cpu else "gpu"] // max(out_bytes, 1))

    def block_calls(self, out_bytes: int) -> int:
        """Calls in one of the candidate's timed blocks: the profile's block, fewer where their snapshots would
        exceed :data:`SNAPSHOT_BYTES`."""
        return min(self.reference.timing_config(self.prof).block, self.snapshot_calls(out_bytes))

    def build(self) -> None:
        """``go`` under a shared hold (step ``build``), given back while the worker compiles a Triton kernel
        (:mod:`kernelgym.judge.compile_pause`): the worker has synchronised before it says ``compiling``, so none of
        its work is on the GPU, and it waits for ``resume``, sent once this side holds the GPU again. Compiling runs
        on the compile stage's clock; waiting for the GPU again moves the deadlines on. After
        :data:`MAX_COMPILE_PAUSES` pauses the hold is kept through the rest: an evaluation cannot linger by
        announcing compilations, each of which would wait for the GPU again."""
        pauses = 0
        with contextlib.ExitStack() as hold:
            hold.enter_context(self.gpu(label="build"))
            self.send(Command.GO)
            while self.expect(Event.LOADED, Event.COMPILING)["event"] == Event.COMPILING:
                pauses += 1
                if pauses <= MAX_COMPILE_PAUSES:
                    hold.close()
                    with self.step("compile_paused"):
                        self.expect(Event.COMPILED)
                    hold.enter_context(self.gpu(label="build"))
                else:
                    self.expect(Event.COMPILED)
                self.send(Command.RESUME)

    @contextlib.contextmanager
    def gpu(self, alone: bool = False, label: str | None = None):
        """Hold the GPU for one step, shared with other evaluations' steps (``label`` names the step in the lock's
        kept holds) or (``alone``) to this one; the time spent waiting moves the deadlines on (it is never charged
        to the candidate). The worker is idle between steps (it acts only on commands and synchronises before it
        answers), so releasing here leaves no work of this evaluation on the GPU."""
        if self._holding_alone:  # inside this evaluation's own exclusive hold (a timing round): the GPU is already ours
            yield
            return
        hold, outer = contextlib.ExitStack(), self._gpu_hold
        with hold:
            self._acquire(hold, alone, label)
            self._holding_alone, self._gpu_hold = alone, (hold, alone, label)
            try:
                yield
            finally:
                self._holding_alone, self._gpu_hold = False, outer

    def _acquire(self, hold: contextlib.ExitStack, alone: bool, label: str | None) -> None:
        """Enter the GPU lock into ``hold``; the wait moves the deadlines on and counts as ``gpu_wait``."""
        asked = time.monotonic()
        hold.enter_context(self.admission.exclusive() if alone else self.admission.shared(label))
        waited = time.monotonic() - asked
        self.waited_s += waited
        self.postpone(waited)

    @contextlib.contextmanager
    def off_gpu(self):
        """Give the GPU hold of the current step back for a block of the judge's own work on the host (or a wait),
        and take the same kind of hold again after (the wait moves the deadlines on, as any wait for the GPU does).
        This evaluation's queued GPU work is waited for first, and the worker is idle in a step (it has answered;
        between timed blocks, where a compared call's check runs inside the timing's exclusive hold, too), so the
        block leaves nothing of this evaluation on the GPU: the block must not touch the GPU either. Outside a
        hold, the block runs as it is.

        A float64 result that did not fit the GPU is computed on the host (:meth:`~kernelgym.judge.reference.
        ReferenceSide.exact_outputs`): inside the trial's shared hold it kept every timer of the other evaluations
        waiting (writer preference then held new steps back too), the whole GPU idle for its 154 s (H200, batch B
        at c27665c); inside a timing slice's exclusive hold, every other evaluation's steps."""
        current = self._gpu_hold
        if current is None:
            yield
            return
        hold, alone, label = current
        streams.settle(self.reference.device)
        hold.close()
        self._holding_alone = False  # nothing is held in the block
        try:
            yield
        finally:
            self._acquire(hold, alone, label)
            self._holding_alone = alone

    @contextlib.contextmanager
    def step(self, name: str):
        """Add the time of the block to ``durations[name]`` (a step inside the stages, measured inside its GPU
        hold, so without the waits): where a stage's time goes, e.g. ``trials`` and ``reference`` (the runner
        computing the reference's outputs, part of the trials) within ``correctness``. The judge's own steps
        (:data:`JUDGE_OWN_STEPS`; the outermost, where one runs inside another) move the deadlines on by their
        time: the candidate's limits are never spent on the judge's work."""
        started = time.monotonic()
        own = name in JUDGE_OWN_STEPS and not self._in_judge_step  # the outermost of the judge's own steps
        self._in_judge_step = self._in_judge_step or own
        try:
            yield
        finally:
            elapsed = time.monotonic() - started
            if own:
                self._in_judge_step = False
                self.postpone(elapsed)
            self._step_s[name] = self._step_s.get(name, 0.0) + elapsed
            self.result.durations[name] = round(self._step_s[name], 3)  # rounded once: sub-ms steps add up

    def run_build(self) -> None:
        """Build-only session: the worker executes the text (building its extension) and stops."""
        try:
            self.expect(Event.READY)
            self.enter("compile")
            self.send(Command.GO)
            self.expect(Event.LOADED)
        finally:
            self.result.durations[self.stage_name] = round(time.monotonic() - self.stage_started, 3)

    # -- outputs -------------------------------------------------------------------------------------------------
    def secret(self, kind: str, index: int) -> int:
        """A trial's secret seed: the batch plan's for that trial when the evaluation is part of one
        (:mod:`kernelgym.judge.batch`), else a fresh one, drawn once per trial (the null calls compute the first
        standard trial's reference outputs ahead of it, :meth:`measure_null_overhead`)."""
        if self.plan is not None:
            return self.plan.seed(kind, index)
        return self._seeds.setdefault((kind, int(index)), secret_seed())

    def trial(self, index: int, kind: str) -> None:
        """One trial: ``standard``, ``outlier``, ``recheck`` (after timing) or, for random outputs, ``repeat`` (the
        inputs of the first standard trial once more: the two outputs must differ as two draws of the reference do,
        :func:`~kernelgym.judge.statistical.repeat_gap`)."""
        seed = self._first_draw[0] if kind == "repeat" else self.secret(kind, index)
        where = "after timing" if kind == "recheck" else f"{kind} trial {index}"
        record = {"trial": index, "stage": kind}
        outlier, refs = NO_OUTLIERS, None
        if kind == "outlier":
            outlier, refs = self._outlier_inputs(seed)
            record["outliers"] = OUTLIER_RECORDS[outlier]
            if outlier != NO_OUTLIERS and outlier not in self._probe_kinds:
                self._probe_kinds.append(outlier)
        self.send(Command.TRIAL, seed, outlier)
        self._repeating = kind == "repeat"
        try:
            self.compare(seed, outlier, where, trial=record, refs=refs)
        finally:
            self._repeating = False

    def wide_trial(self, index: int, stage: str) -> bool:
        """The trial of :data:`~kernelgym.judge.inputs.WIDE_OUTLIERS`: positive outliers beyond float16's range, among
        the ordinary trials of a float32/float64 task (:func:`trial_order`). Its tolerance is the outlier trials',
        widened around the float64 result by :meth:`wide_allowances` (outliers' terms that cancel); what it is for
        fails by far more (half precision turns the outliers into inf, or clamped changes their ratios; a kernel
        reading part of a reduction's input sees another share of them). Where the reference raises on those
        inputs or is not finite on them, the task's domain does not reach that far and the trial is left out
        (returns ``False``). ``stage``: ``wide`` (among the trials) or ``recheck`` (after timing)."""
        seed = self.secret(stage, index)
        refs = self._reference_outputs_in_domain(seed, WIDE_OUTLIERS)
        if refs is None or not all_finite(refs):
            return False
        self.send(Command.TRIAL, seed, WIDE_OUTLIERS)
        if stage == "wide" and WIDE_OUTLIERS not in self._probe_kinds:
            self._probe_kinds.append(WIDE_OUTLIERS)
        where = f"wide trial {index}" if stage == "wide" else "after timing (wide inputs)"
        self.compare(seed, WIDE_OUTLIERS, where, trial={"trial": index, "stage": stage, "outliers": "wide"},
                     refs=refs)
        return True

    def _outlier_inputs(self, seed: int) -> tuple[int, tuple]:
        """How an outlier trial's inputs get their outliers, and the reference's outputs on them: of either sign,
        unless the reference's outputs on those are not finite or it raises on them
        (:data:`~kernelgym.judge.inputs.SIGNED_OUTLIERS`: each input keeps its sign); when it raises on those too,
        the task's domain has no outliers and the trial runs on standard inputs (``NO_OUTLIERS``)."""
        for kind in (OUTLIERS, SIGNED_OUTLIERS):
            refs = self._reference_outputs_in_domain(seed, kind)
            if refs is not None and (kind == SIGNED_OUTLIERS or all_finite(refs)):
                return kind, refs
        return NO_OUTLIERS, self._reference_outputs(seed, NO_OUTLIERS)

    def _reference_outputs_in_domain(self, seed: int, outlier: int) -> tuple | None:
        """The reference's outputs on those inputs, or ``None`` where the trusted reference refuses them (a
        probability above 1): the inputs left the task's domain. Running out of GPU memory is the judge's error."""
        import torch

        try:
            return self._reference_outputs(seed, outlier)
        except torch.cuda.OutOfMemoryError:
            raise
        except Exception:  # noqa: BLE001
            return None

    def _reference_outputs(self, seed: int, outlier: int) -> tuple:
        def compute():
            refs = self.reference.outputs(self.task, self.init_seed, seed, outlier)
            streams.settle(self.reference.device)  # whole before a batch-mate on another stream may read them
            return refs

        with self.step("reference"):
            return self.plan.outputs(compute, seed, outlier, budget=self.admission.budget) \
                if self.plan is not None and self.plan.issued(seed) else compute()

    def compare(self, seed: int, outlier: int, where: str, trial: dict | None = None, refs: tuple | None = None,
                seal: dict | None = None) -> None:
        """Receive the worker's outputs for inputs from ``seed`` (with ``outlier``, see
        :data:`~kernelgym.judge.inputs.OUTLIERS`) and compare them with the reference's (``refs`` when the caller
        has them already)."""
        if refs is None and self._early_refs is not None and self._early_refs[0] == seed and outlier == NO_OUTLIERS:
            refs, self._early_refs = self._early_refs[1], None  # computed for the null calls
        if refs is None:
            refs = self._reference_outputs(seed, outlier)
        self.out_bytes = sum(r.numel() * r.element_size() for r in refs if hasattr(r, "element_size"))
        self._note_reference(refs, seed)
        check = self._receive_and_check(refs, outlier, seed, seal)
        if trial is not None:
            self.result.trials.append({**trial, **check.to_dict()})
        if not check.ok:
            self.send(Command.STOP)
            raise Verdict("incorrect", f"wrong result in {where}: {check.reason}")
        if trial is not None:
            self._require_own_launches(where)
            self._refuse_host_reads(self._host_reads, where)

    def _refuse_host_reads(self, reads, where: str) -> None:
        """Under a torch policy that wants all compute in the candidate's kernels (``torch_fallback`` applies), no
        forward may hand tensor values to host code (numpy, lists, Python numbers: the worker's count,
        :class:`~kernelgym.judge.profile.HostReads`; ``None`` where nothing was counted)."""
        if reads is None or not policy.applies("torch_fallback", self.result.torch_policy):
            return
        if not isinstance(reads, int) or isinstance(reads, bool) or reads < 0:
            raise self.reject("timing_tampered", "the host-read count sent from the worker was malformed")
        if reads:
            raise self.reject("torch_fallback", f"the forward handed tensor values to host code {reads} time(s) "
                                                f"in {where} (numpy, lists or Python numbers): the work must be "
                                                f"done by your own kernels")

    def _require_own_launches(self, where: str) -> None:
        """Under a torch policy that needs the candidate's own kernels (:mod:`.policy`), every trial's forward must
        launch one of its Triton kernels, not only the profiled forward (a forward can tell that one apart: the
        profiler's state is visible to it). The worker counts launches in every call, so the trials look like any
        other call. CUDA candidates' launches are not counted (they happen in C++): for them the profiled
        forward's check stands alone."""
        own = self._own_launches
        if self.result.backend != "triton" or not isinstance(own, int) or isinstance(own, bool) or own > 0:
            return
        if policy.applies("no_custom_kernel", self.result.torch_policy):
            raise self.reject("no_custom_kernel", f"none of the candidate's kernels was launched in {where}")

    def _note_reference(self, refs: tuple, seed: int) -> None:
        """Flag the task ``degenerate_task`` while every output of the reference compared so far is bit-identical
        over several seeds, and drop the flag once two differ (:mod:`.degeneracy`)."""
        if self._degeneracy.settled:
            return  # not degenerate, whatever comes: no more fingerprints (each sums a whole output in float64)
        degenerate = self._degeneracy.note(output_fingerprint(refs), seed)
        flagged = any(f.get("name") == DEGENERATE for f in self.result.flags)
        if degenerate and not flagged:
            self.result.add_flag(DEGENERATE, DEGENERATE_REASON)
        elif degenerate is False and flagged:
            self.result.flags[:] = [f for f in self.result.flags if f.get("name") != DEGENERATE]

    def _receive_and_check(self, refs: tuple, outlier: int, seed: int, seal: dict | None = None) -> TrialCheck:
        """``seal``: a timed call's (``_seals``), whose answer to ``check`` must match it."""
        with self.step("candidate"):  # the worker's inputs, forward, synchronisation and checks of its own
            header = self.expect(Event.OUTPUTS)
        if self._check_sent is not None:  # the answer to a check: by the wall clock (wallclock.check_lower_bound_ms)
            self.check_ms.append((time.perf_counter() - self._check_sent) * 1e3)
            self._check_sent = None
        self._own_launches = header.get("own_launches")
        self._host_reads = header.get("host_reads")
        flags = integrity_flags(header)
        if flags:
            for name, reason in flags[1:]:
                self.result.add_flag(str(name), str(reason))
            raise self.reject(str(flags[0][0]), str(flags[0][1]))
        if seal is not None:
            self._check_seal_of_description(seal, header)
        if header.get("mutated_inputs"):
            self.result.add_flag("input_mutation", f"the forward modified input(s) {header['mutated_inputs']}")
            return TrialCheck(False, f"the forward modified its input(s) {header['mutated_inputs']}")
        descs = header.get("descs") or []
        if len(descs) != len(refs):
            return TrialCheck(False, f"expected {len(refs)} output(s), got {len(descs)}")
        outs = []
        for i, (ref, desc) in enumerate(zip(refs, descs)):
            if isinstance(desc, dict) and desc.get("kind") == "subclass":
                raise self.reject("tensor_subclass", f"output {i} is a tensor subclass ({desc.get('type')}); "
                                                     f"return plain tensors")
            bad = check_description(describe(ref), desc, i) or \
                check_layout(ref, desc, i, self.settings.worker_device) or self._aliasing_refused(desc, i, seed, outlier)
            if bad is not None:
                return bad
            if desc["kind"] == "tensor":
                try:
                    with self.step("handover"):
                        outs.append(self._receive_tensor(desc))
                except ProtocolError as exc:
                    return TrialCheck(False, f"output {i}: {exc}")
            else:
                outs.append(desc.get("value"))
        if seal is not None:
            self._check_seal_of_outputs(seal, outs)
        atol = self.task.atol * (10.0 if outlier else 1.0)
        agains = None
        if self.task.check == "statistical":  # two more independent draws: could the output be one more?
            with self.step("reference"):
                agains = [self.reference.outputs(self.task, self.init_seed, seed, outlier) for _ in range(2)]
        with self.step("compare"):
            check = compare_outputs(refs, tuple(outs), atol, self.task.rtol, self.task.check, agains=agains)
            if check.ok and agains is not None:
                randomness = self._check_randomness(seed, outlier, tuple(outs), agains)
                check = check if randomness.ok else randomness
        if not check.ok and self.task.check == "allclose" and _has_floating(refs):
            # the eager reference's own rounding is not the candidate's fault: elements within tolerance of the
            # float64 result pass too (kernelgym.judge.correctness); computed only when the plain check fails
            with ExactRoom() as room:  # the float64 results' memory, where it is free now or they had to wait for it
                self.exact_room(room, wait_s=0.0)
                make_room = functools.partial(self.exact_room, room)
                with self.step("exact_reference"):  # its cost shows in durations, whoever made it needed
                    exacts = self.reference.exact_outputs(self.task, self.init_seed, seed, outlier,
                                                          off_device=self.off_gpu, make_room=make_room)
                if exacts is not None:
                    check = compare_outputs(refs, tuple(outs), atol, self.task.rtol, self.task.check, exacts)
                if not check.ok and exacts is not None and outlier == WIDE_OUTLIERS:
                    check = self._compare_wide(seed, refs, tuple(outs), atol, exacts, make_room)
                exacts = None  # freed before the reservation ends
        return check

    def _seal_broken(self, what: str) -> Verdict:
        """The rejection for a ``check``'s answer that does not match its call's seal. Where the runner's clock on the
        checks' answers contradicts the reported times too (:func:`~kernelgym.judge.wallclock.check_lower_bound_ms`,
        as :meth:`check_wall_clock` would find after the last block), that is the verdict, with what the clock saw
        kept beside it, and the seal's flag is added: the evidence no code in the worker can forge comes first."""
        reason = (f"the judge's copy of a timed call's outputs was changed after the call ({what} no longer what "
                  f"the worker sent with its block's times): work done outside the timed interval")
        clock = getattr(self, "clock", None)
        if self.check_ms and clock is not None and clock.times:
            checks = check_lower_bound_ms(min(self.check_ms), not self.settings.on_cpu)
            contradiction = mismatch(clock.median_ms(), checks, "describing a compared call's output took")
            if contradiction:
                self.result.add_flag("monkeypatch", reason)
                self.result.runtime_spread = {
                    "runner_bound_ms": checks, "runner_bound_from": "checks",
                    "fastest_check_ms": min(self.check_ms),
                    "runner_block_walls_ms": [round(w, 4) for w in clock.per_call_ms],
                    "runner_block_probed": list(self._probed_blocks),
                    "synchronized_median_ms": clock.median_ms()}
                return self.reject("timing_wall_mismatch", contradiction)
        return self.reject("monkeypatch", reason)

    def _check_seal_of_description(self, seal: dict, header: dict) -> None:
        """A ``check``'s answer describes the call its seal was sent for: the inputs it wrote into and each output's
        layout as returned (the worker keeps both in plain lists the candidate's code can reach after the block)."""
        if list(header.get("mutated_inputs") or []) != list(seal["changed"]):
            raise self._seal_broken("the inputs it wrote into are")
        descs = header.get("descs") or []
        layouts = seal["layouts"]
        for k, desc in enumerate(descs):
            shown = layouts[k] if k < len(layouts) else None
            if not isinstance(desc, dict) or desc.get("kind") != "tensor" or shown is None:
                continue
            if any(desc.get(name) != value for name, value in shown.items()):
                raise self._seal_broken(f"output {k}'s layout is")

    def _check_seal_of_outputs(self, seal: dict, outs: list) -> None:
        """The outputs a ``check`` sent hold, at the positions its seal's key draws, the bytes whose digests the seal
        carries (:func:`~kernelgym.judge.timing.sample_digests`): the snapshot was not written into after its block,
        whatever became of the worker's own sample of it (a red-team helper dropped the samples, round 35)."""
        from kernelgym.judge.timing import sample_digests, snapshot_sample

        with self.step("compare"):
            digests = sample_digests(snapshot_sample(tuple(outs), int(seal["key"])))
        if digests != list(seal["samples"]):
            raise self._seal_broken("its sample is")

    def _reference_state_bytes(self) -> int:
        """Bytes of the reference model's parameters and buffers: what torch's copies in a forward may re-lay out
        beyond :data:`~kernelgym.judge.profile.TORCH_COPY_SHARE` of its outputs (the bundled LSTM and GRU solutions
        concatenate their weights each forward), none for a data-movement task's model."""
        import itertools

        _, model = self.reference.model(self.task, self.init_seed)
        return sum(int(t.numel()) * int(t.element_size()) for t in itertools.chain(model.parameters(), model.buffers()))

    def _relayout_bytes(self, seed: int) -> int:
        """Bytes of the profiled forward's tensor inputs (made from ``seed`` on the reference's side, not told by
        the worker) where the task is compute-heavy: its FLOPs at least :data:`COMPUTE_HEAVY` times its bytes, by
        its own formulas at its own shapes (:meth:`kernelgym.tasks.Task.evaluate_formula`, as the efficiency
        figures read them). There torch's copies may re-lay out each input once (``B.t().contiguous()`` before a
        matmul kernel) beyond :data:`~kernelgym.judge.profile.TORCH_COPY_SHARE` of the outputs: no copy does a
        matmul's or a convolution's work. 0 for a data-movement task (a transpose, a permute, an elementwise
        op, a task without formulas): there a copy is the work."""
        import torch

        from kernelgym.judge.inputs import input_leaves, make_inputs
        from kernelgym.tasks.task import TaskError

        try:
            flops, nbytes = self.task.evaluate_formula("flops"), self.task.evaluate_formula("bytes")
        except TaskError:
            return 0
        if not flops or not nbytes or nbytes <= 0 or flops < COMPUTE_HEAVY * nbytes:
            return 0
        module, _ = self.reference.model(self.task, self.init_seed)
        inputs = make_inputs(module, seed, self.reference.device)
        return sum(int(x.numel()) * int(x.element_size()) for x in input_leaves(inputs) if torch.is_tensor(x))

    def _aliasing_refused(self, desc: dict, index: int, seed: int, outlier: int) -> TrialCheck | None:
        """A failing check when the candidate's output ``index`` shares memory with one of its call's inputs (a view
        of an input: the judge's snapshot or copy-out then made the copy, untimed) and the reference's output does
        not; ``None`` otherwise. A task whose reference returns a view of its input (a reshape) allows it: the
        reference is run once more to know, the first time an output aliases (a sixteenth red-team helper)."""
        if not (isinstance(desc, dict) and desc.get("kind") == "tensor" and desc.get("aliases_input") is True):
            return None
        if self._reference_aliases is None:
            with self.step("reference"):
                self._reference_aliases = self.reference.output_aliases(self.task, self.init_seed, seed, outlier)
        if index < len(self._reference_aliases) and self._reference_aliases[index]:
            return None
        return TrialCheck(False, f"output {index} shares memory with an input (a view of it), where the reference's "
                                 f"is a tensor of its own: return the output materialised, not a view the judge "
                                 f"would have to copy", output=index)

    def exact_room(self, room: ExactRoom, wait_s: float = EXACT_MEMORY_WAIT_S) -> bool:
        """Reserve :attr:`exact_need` bytes of the memory budget beside the evaluation's own, into ``room`` (kept
        until the comparison that needed the float64 results ends), waiting at most ``wait_s`` off the GPU hold
        (:meth:`off_gpu`: others' steps, and the evaluations whose end frees the memory, go on). Whether the memory
        is reserved now (also where ``room`` holds it already); ``False`` at once where it could never be (no
        budget, or not beside this evaluation's own reservation). Asked without waiting before the float64
        reference first runs on the GPU, so that it runs inside a reservation wherever the budget has room for it
        then (outside every reservation it could run other evaluations out of memory), and, where it ran out of
        GPU memory without one (:meth:`~kernelgym.judge.reference.ReferenceSide.exact_outputs`), with the wait:
        then it runs on the GPU again, and on the host only where the wait or that fails."""
        capacity = self.admission.budget.capacity
        if room.reserved:
            return True
        if not capacity or not self.exact_need or self.memory_need + self.exact_need > capacity:
            return False
        if wait_s <= 0:  # a look at the budget: nothing to give back or wait for
            granted = room.enter_context(self.admission.try_memory(self.exact_need, 0.0))
        else:
            with self.off_gpu(), self.step("exact_memory_wait"):
                granted = room.enter_context(self.admission.try_memory(self.exact_need, wait_s))
        room.reserved = granted is not None
        return room.reserved

    def _compare_wide(self, seed: int, refs: tuple, outs: tuple, atol: float, exacts: tuple,
                      make_room: Callable[[], bool] = lambda: False) -> TrialCheck:
        """A wide trial's outputs against the float64 result with :meth:`wide_allowances`, by the rule of
        :func:`compare_wide` (a second, larger sample of moves for a failure by a few elements).

        The allowance is the largest change a *sample* of moves makes, and an element whose terms cancel can be left
        nearly still by every move of a small sample, by chance, where an honest kernel's rounding moves it (H100,
        b21456f: one element of L2/20's 134M, in a recheck; benchmarks/wide_allowance_replay.py finds such misses on
        the CPU where a row's two wide terms cancel). A larger sample shrinks that chance geometrically; it is drawn
        only for the few failures that could be such a miss, so an honest kernel's evaluation pays for it rarely,
        and a kernel wrong in many elements never."""
        def allowances_for(pairs: int) -> tuple:
            with self.step("exact_reference"):
                return self.wide_allowances(seed, exacts, pairs, make_room)

        check, pairs, allowances = compare_wide(
            lambda allowed: compare_outputs(refs, outs, atol, self.task.rtol, self.task.check, exacts,
                                            allowances=allowed), allowances_for)
        allowance = allowances[check.output] if not check.ok and check.output is not None else None
        if allowance is not None:
            check.reason += (f" (and beyond the float64 result by more than moving the data by a relative "
                             f"{self._wide_rel():.3g} moves it, {pairs} pairs of moves, up to "
                             f"{allowance.largest():.3g} in a row)")
        return check

    def _wide_rel(self) -> float:
        return max(self.task.rtol, WIDE_MIN_REL)

    def wide_allowances(self, seed: int, exacts: tuple, pairs: int | None = None,
                        make_room: Callable[[], bool] = lambda: False) -> tuple:
        """Per output of a wide trial, a :class:`~kernelgym.judge.correctness.RowAllowance`: per row (slice along the
        last dimension), how far the float64 result moves when every floating input and parameter moves by the
        task's relative tolerance (at least :data:`WIDE_MIN_REL`), the largest such move over ``pairs`` (default
        :data:`WIDE_PERTURBATION_PAIRS`) opposite pairs of random moves, times :data:`WIDE_SPREAD_FACTOR` (``inf``
        where a moved result is not finite where the float64 one is); ``None`` for an output that is not a floating
        tensor, and for all of them where the model cannot run so. ``make_room``: :meth:`exact_room` of the
        comparison, asked where the moved results ran out of GPU memory.

        Outliers at 1e5 make terms of thousands that cancel: honest float32 kernels (TF32 matmuls, another
        summation order) were off by thousands on L2/15's GLU, had signs flipped after L2/20's tanh and gave 26
        instead of -0.2 after L3/19's softmax of scores near 1e8 (H200, batch B at 074a7ed). The forward error
        there is unbounded, so the trial asks for a small *backward* error instead: the output must be the exact
        model's on data within the task's relative tolerance of the trial's, up to the factor. What the trial is
        for fails by far more: a half-precision operand clamped at 65504 misses a third of a 1e5 outlier's term,
        one that is not clamped is infinite, a kernel that reads part of a reduction sees other outliers. Per row,
        not per element (a random move can leave one element nearly still by chance, where an honest kernel's
        rounding does not) and not per output (a row the outliers make chaotic would excuse every other row). In
        opposite pairs: an element at a threshold moves only when the data moves towards it (H100, db7c380: L2/15,
        L2/20, L2/56, L2/65 and L3/49 failed a wide trial or probe by one element flipped by its rounding)."""
        from kernelgym.judge.correctness import LargestChange

        largest = LargestChange(exacts)
        if not self.reference.perturbed_outputs(self.task, self.init_seed, seed, WIDE_OUTLIERS, self._wide_rel(),
                                                WIDE_PERTURBATION_PAIRS if pairs is None else pairs,
                                                largest.add, off_device=self.off_gpu, make_room=make_room):
            return tuple(None for _ in exacts)
        return largest.allowances(WIDE_SPREAD_FACTOR, self._wide_rel())

    def _check_randomness(self, seed: int, outlier: int, outs: tuple, agains: list) -> TrialCheck:
        """Random outputs: keep the first standard trial's; on its ``repeat``, the two must differ as two draws of
        the reference on the same inputs do (a fixed pattern, the same seed every call, passes every test of one
        output's law: a red-team finding)."""
        from kernelgym.judge.statistical import repeat_gap

        if self._first_draw is None and outlier == NO_OUTLIERS:
            self._first_draw = (seed, outs)
            return TrialCheck(True)
        if not self._repeating or self._first_draw[0] != seed:
            return TrialCheck(True)
        for i, (first, again, a, b) in enumerate(zip(self._first_draw[1], outs, agains[0], agains[1])):
            if all(hasattr(t, "reshape") for t in (first, again, a, b)):
                reason = repeat_gap(first.reshape(-1), again.reshape(-1), a.reshape(-1), b.reshape(-1), a.device)
                if reason:
                    return TrialCheck(False, f"output {i}: {reason}", output=i)
        return TrialCheck(True)

    def _receive_tensor(self, desc: dict):
        """One output through device memory this side made (:mod:`kernelgym.judge.device_transfer`, when the worker
        has an fd socket and this process can make such memory), else through a file this side made
        (:mod:`kernelgym.judge.transfer`). The deadlines grow by the time the copy may take at
        :data:`TRANSFER_BYTES_PER_S`: the size is the reference's, not the candidate's."""
        nbytes = expected_nbytes(desc)
        if self.worker.sock is not None and nbytes:
            try:
                with self.step("handover_lend"):  # the handover's parts, for the throughput benchmark
                    buffer = device_transfer.lend_buffer(device_index(self.reference.device), nbytes,
                                                         release_cached=self.reference.release_cached_memory)
            except DeviceTransferUnavailable as exc:
                self.worker.sock.close()  # this process cannot: the file path for the rest of this evaluation
                self.worker.sock = None
                device_transfer.unavailable(exc)
                buffer = None
            if buffer is not None:  # else (no device memory even after releasing the cache): a file, this once
                device_transfer.HANDOVERS["device"] += 1
                try:
                    self.send(Command.SEND_DEVICE)
                    try:
                        buffer.send_fd(self.worker.sock)
                    except OSError as exc:
                        raise ProtocolError(f"the worker did not take its output buffer ({exc})") from exc
                    with self.step("handover_worker"):
                        self.expect(Event.TENSOR)
                    with self.step("handover_take"):
                        self.worker.freeze(True)  # its copy is taken while none of its processes runs
                        try:
                            return buffer.take(desc)
                        finally:
                            self.worker.freeze(False)
                finally:
                    with self.step("handover_release"):  # unmapped and released, however the handover ended
                        buffer.close()
        device_transfer.HANDOVERS["file"] += 1
        with OutputFile(transfer_dir(self.worker.xfer, self.worker.scratch, nbytes), nbytes) as out:
            self.postpone(nbytes / TRANSFER_BYTES_PER_S)
            self._lent_files.add(str(out.path))
            try:
                self.send(Command.SEND, out.path)
                self.expect(Event.TENSOR)
                return tensor_from_raw(desc, out.read())
            finally:
                self._lent_files.discard(str(out.path))

    def profile(self) -> None:
        """The profiled forward: its outputs are compared, and the candidate's own kernels must have done the work
        (see docs/SECURITY.md)."""
        seed = self.secret("profile", 0)
        self.send(Command.PROFILE, seed)
        header = self.expect(Event.PROFILE)
        self.compare(seed, NO_OUTLIERS, "the profiled forward")
        report = header.get("report") if isinstance(header.get("report"), dict) else {}
        names = report.get("candidate_kernels") or []
        self._refuse_host_reads(report.get("host_reads"), "the profiled forward")
        res = self.result
        before = len(res.flags)
        found = []  # (flag, reason) as measured; the torch policy decides which of them reject
        aten = report.get("aten_compute_ops") or []
        if aten:
            found.append(("torch_fallback", f"torch operators did compute in the forward: {', '.join(aten[:5])}"))
        if report.get("host_copies"):
            found.append(("torch_fallback", f"the forward copied device memory to the host {report['host_copies']} "
                                            f"time(s): the work must be done by your own kernels on the device"))
        copied, produced = report.get("torch_copied_bytes"), report.get("output_bytes")
        if self.settings.on_cpu and isinstance(copied, int) and isinstance(produced, int) and produced > 0 and \
                copied >= TORCH_COPY_SHARE * produced and \
                copied >= TORCH_COPY_SHARE * produced + self._reference_state_bytes() + \
                self._relayout_bytes(seed):  # the model and the inputs only if needed
            found.append(("torch_fallback", f"torch's copies (copy_, cat, clone, reshape, ...) wrote {copied} bytes in "
                                            f"the forward, {copied / produced:.0%} of its outputs' {produced}: the "
                                            f"data movement of the task must be done by your own kernels"))
        if self.settings.on_cpu:
            launched = sum(int(v) for k, v in (report.get("interpreter_launches") or {}).items() if k in names)
            if launched == 0:
                found.append(("no_custom_kernel", "none of the candidate's kernels was launched in the forward"))
        else:
            res.kernel_coverage = report.get("coverage")
            res.top_kernels = {"candidate": list(report.get("top_kernels") or []),
                               "reference": self.reference.top_kernels(self.task, self.init_seed)}
            if not report.get("launched"):
                found.append(("no_custom_kernel", "none of the candidate's kernels ran on the GPU in the forward"))
            elif res.kernel_coverage is not None and res.kernel_coverage < self.settings.min_kernel_coverage:
                foreign = ", ".join(k["name"][:60] for k in report.get("foreign_kernels", [])[:3])
                found.append(("low_kernel_coverage", f"only {100 * res.kernel_coverage:.0f}% of GPU time was in the "
                                                     f"candidate's kernels (others: {foreign})"))
        for name, reason in found:
            if policy.applies(name, res.torch_policy):
                res.add_flag(name, reason)
        if len(res.flags) > before:
            self.send(Command.STOP)
            raise Verdict("rejected", f"rejected: {res.flags[before]['reason']}")

    # -- timing --------------------------------------------------------------------------------------------------
    def time_against_reference(self) -> None:
        """Candidate blocks (run by the worker, one call of each compared) interleaved with eager-reference blocks
        (run here with the worker frozen), see :func:`kernelgym.judge.timing.alternate`. The reference is timed
        afresh when nothing is cached or the profile asks for it (``full``), else the cached figure is used."""
        cfg = self.reference.timing_config(self.prof)
        if self.witness is not None:
            with self.step("witness_blocks"):  # off every GPU hold: a witness still starting holds up no one
                self.witness.wait_ready()
        # the GPU held alone in slices (admission.SlicedHold): the warm-up and the rounds that follow it within a
        # slice share one exclusive hold, so the other evaluations' steps drain once per slice, not once per round
        with SlicedHold(lambda: self.gpu(alone=True)) as hold, streams.default(self.reference.device):
            self._time_in_slices(cfg, hold)

    def _time_in_slices(self, cfg, hold: SlicedHold) -> None:
        from kernelgym.judge.timing import alternate

        shared = self.plan.baseline(self.plan_baseline_key()) if self.shares_baseline() else None
        cached = shared or (None if self.prof.alternate_baseline else self.reference.cached_baseline(self.task))
        if cached is not None and "overhead_ms" not in cached:
            cached = None  # measured alone (older cache): time it again interleaved, which also gives the overhead
        out_bytes = self.out_bytes  # known from the trials
        self._per_block = self.snapshot_calls(out_bytes)
        self._check_share = min(1.0, CHECK_EVERY_BLOCK_BYTES / max(out_bytes, 1))
        self.clock = BlockClock(self._raw_block, scheduler=lambda: scheduler_ns(self._worker_pids))
        blocks = {"candidate": self._checked_blocks}
        if cached is None:
            with self.gpu(label="reference_warmup"):  # shared, before the slices start
                timer = self.reference.timer(self.task, self.prof)
            reference = BlockClock(lambda calls: self._frozen(timer.copied_block, calls),
                                   untimed_ms=lambda: timer.recorder_ms)
            blocks["reference"] = lambda calls: self._alone(reference, calls, "reference_blocks")
        with hold.round(), self.step("timing_warmup"):  # the candidate's warm-up (and re-sweep), first slice
            self.send(Command.TIME, secret_seed())
            self.expect(Event.TIMING_READY)
        # the timing budget is spent by this evaluation's own timing, not by its waits for the GPU: under load a
        # timer takes as many samples as alone (the waits for each block would otherwise eat the budget)
        # each round (a candidate block, its checked calls, a reference block) inside the slice of the hold
        # nor by a witness's blocks (kernelgym.judge.witness): the judge's own work, in the rounds' holds
        samples = alternate(blocks, cfg, clock=lambda: time.perf_counter() - self.waited_s
                            - self._step_s.get("witness_blocks", 0.0), round_hold=hold.round)
        if self._forced_blocks_needed():
            # in the slice still held (or one more): each of these one-call blocks in an exclusive hold of its own
            # waited for the other evaluations' steps to drain once more, 21 of batch B's 46 correct candidates
            # had some, and they were up to 80% of the timing stage (H100, docs/BENCHMARKS.md, twenty-fifth session)
            with hold.round(), self.step("timing_forced"):
                self._forced_blocks()
        hold.close()  # what follows takes holds of its own, as long as it needs them
        if cached is None:
            # cached only once the evaluation is accepted (Judge._offer_baseline): a candidate that slowed the
            # reference and then failed must leave no figure for later evaluations (a red-team helper, 2026-12-07)
            base = {**self.reference.summarize_baseline(samples["reference"], overhead_ms=reference.overhead_ms()),
                    "how": "interleaved"}
        else:
            base = {**cached, "how": "batch" if shared else "cached"}
        with self.step("wall_check"):
            self.runner_bound_ms = self.check_wall_clock(base, min(cfg.block, cfg.max_runs))
        with self.step("spans"):
            self.candidate_times, self.baseline = self._activity_times(), base
        self.compared_ms = [self.candidate_times[i] for i in self._compared_at]

    def _unprobed_kinds(self) -> list[int]:
        """The outlier kinds none of whose probes was compared yet (none while probes are off)."""
        return [kind for kind in (self._probe_kinds if PROBE_SHARE > 0 else ()) if not self.probes_compared.get(kind)]

    def _forced_blocks_needed(self) -> bool:
        """Whether the timing must end with :meth:`_forced_blocks`."""
        return len(self._compared_at) < MIN_COMPARED_CALLS or bool(self._unprobed_kinds())

    def _forced_blocks(self) -> None:
        """One-call blocks, each compared, until :data:`MIN_COMPARED_CALLS` timed calls are (with large outputs,
        few blocks are compared at random), then blocks of one probe of each outlier kind none of whose probes was
        compared yet, at most :data:`FORCED_PROBES` of a kind (:meth:`probe_for_block`)."""
        while len(self._compared_at) < MIN_COMPARED_CALLS:
            self._checked_blocks(1, force_check=True)
        for kind in self._unprobed_kinds():
            for _ in range(FORCED_PROBES):
                if self.probes_compared.get(kind):
                    break
                self._checked_blocks(1, force_check=True, force_probe=kind)

    def _activity_times(self) -> list[float]:
        """The candidate's time per timed call: its synchronized figure, lowered to its device activity span under
        the activity method (:func:`kernelgym.judge.activity.merge`). The spans are asked for once, after the last
        block and after the runner's clock has judged the synchronized figures: the worker's recorder stops and
        parses outside every block (:mod:`kernelgym.judge.activity`)."""
        times = list(self.clock.times)
        if self.settings.on_cpu or self.reference.timing_method != "activity":
            return times
        self.send(Command.SPANS)
        header = self.expect(Event.SPANS)
        flags = integrity_flags(header)
        if flags:
            raise self.reject(str(flags[0][0]), f"while timed: {flags[0][1]}")
        try:
            return merge_spans(times, header.get("spans_ms"))
        except ValueError as err:  # the worker's own code sends one span or null per call: only a candidate lies
            raise self.reject("timing_tampered", f"the device activity spans sent from the worker were malformed "
                                                 f"({err})") from None

    def shares_baseline(self) -> bool:
        """Whether this evaluation takes and offers its batch's eager figure (:mod:`kernelgym.judge.batch`)."""
        return self.plan is not None and self.prof.batch_baseline

    def plan_baseline_key(self) -> tuple:
        """What a batch's shared eager figure depends on besides the task: the device, the timing method, the
        profile's name and the timing configuration it was measured under (a profile with overrides keeps its
        name)."""
        cfg = self.reference.timing_config(self.prof).to_dict()
        return self.reference.device, self.reference.timing_method, self.prof.name, tuple(sorted(cfg.items()))

    def _alone(self, block, calls: int, step: str) -> list[float]:
        """One timed block with the GPU to this evaluation (its time, without the wait, added to the step named
        ``step``); the lock is taken outside the block's own clock, so waiting for it never enters a timing."""
        with self.gpu(alone=True), self.step(step):
            return block(calls)

    def _frozen(self, run, calls: int) -> list[float]:
        """Run ``run(calls)`` (a reference block) with the worker's processes stopped."""
        self.worker.freeze(True)
        try:
            return run(calls)
        finally:
            self.worker.freeze(False)

    def _checked_blocks(self, calls: int, force_check: bool = False, force_probe: int | None = None,
                        probes: bool = True) -> list[float]:
        """``calls`` timed calls in blocks that fit the snapshot budget; after each, maybe one call compared, and
        the block's probe too when it has one (:meth:`probe_for_block`; none with ``probes`` off)."""
        times: list[float] = []
        while len(times) < calls:
            n = min(self._per_block, calls - len(times))
            seed = secret_seed()
            self._block_seed = seed
            self._block_probe = self.probe_for_block(n, force_probe) if probes else (-1, NO_OUTLIERS)
            self._probed_blocks.append(self._block_probe[0] >= 0)
            # a witness's or a late null block and the candidate's after it in one exclusive hold (they come after
            # the timing's slices have closed: held apart, another evaluation's step could run between them)
            paired = self._late_wanted > 0 or (self.witness is not None and self.witness.wanted)
            with self.gpu(alone=True) if paired else contextlib.nullcontext():
                self._witness_block(n)
                self._late_null_block(n)
                block = self._alone(self.clock, n, "candidate_blocks")
            times += block
            first = len(self.clock.times) - n
            if force_check or secrets.randbelow(1 << 20) < self._check_share * (1 << 20):
                self._check_timed_calls(seed, first, n)
        return times

    def _witness_block(self, calls: int) -> None:
        """Where the evaluation has a witness that still wants blocks (:mod:`kernelgym.judge.witness`): a block of
        as many null calls on it, right before the candidate's block and in the same exclusive hold, with the
        candidate's worker stopped (step ``witness_blocks``); the candidate block that follows is one of
        :attr:`_witnessed` where the witness's block was counted."""
        if self.witness is None or not self.witness.wanted:
            return
        with self.gpu(alone=True), self.step("witness_blocks"):
            self.worker.freeze(True)
            try:
                counted = self.witness.block(calls)
            finally:
                self.worker.freeze(False)
        if counted:
            self._witnessed.append(len(self.clock.per_call_ms))

    def _late_null_block(self, calls: int) -> None:
        """Where the late null round still wants blocks (:meth:`_late_null_round`): a block of as many null calls in
        the candidate's worker, right before its next block and in the same exclusive hold (step
        ``late_null_blocks``)."""
        if self._late_wanted <= 0:
            return
        self._late_wanted -= 1
        with self.gpu(alone=True), self.step("late_null_blocks"):
            self.late_clock(calls)

    def _late_nulls_wanted(self, bound: float, measured: bool) -> bool:
        """Whether to run the late null round now: the bound comes from the null calls' overhead (``measured``),
        under the synchronized method (the activity method's recorder is the candidate timer's once it loaded), none
        ran yet, and ``bound`` would raise the candidate's synchronized median."""
        return measured and self.late_clock is None and self.reference.timing_method == "synchronized" and \
            bound > self.clock.median_ms()

    def _late_null_round(self, block: int) -> int:
        """:data:`~kernelgym.judge.wallclock.NULL_WARMUP_BLOCKS` and then
        :data:`~kernelgym.judge.wallclock.LATE_NULL_BLOCKS` blocks of null calls in the candidate's worker, each
        right before a candidate block of ``block`` calls, without probes (:meth:`_late_null_block`): the overhead
        the host's steps have now (:func:`~kernelgym.judge.wallclock.late_null_overhead_ms`). Returns the candidate
        blocks run."""
        self.late_clock = BlockClock(lambda calls: self.null_block(calls, self.null_specs, late=True))
        self.late_ready_ms = []
        self._late_wanted = NULL_WARMUP_BLOCKS + LATE_NULL_BLOCKS
        for _ in range(self._late_wanted):
            self._checked_blocks(block, probes=False)
        return NULL_WARMUP_BLOCKS + LATE_NULL_BLOCKS

    def late_null_overheads(self) -> list[float]:
        """Each counted late null block's overhead per call (ms; empty where none ran): its wall per call by the
        runner's clock, less the wait for its ``timing_ready`` frame (:meth:`_late_null_ready`, before the block
        began), less the mean of its calls' times. The mean, not the median: a call's time includes the worker's
        wait for its seed beyond an allowance (round 44), and a reader of the command channel that held the seed
        lines of a minority of a null block's calls would leave the median where it was and put its hold into the
        overhead (round 45)."""
        clock = self.late_clock
        if clock is None:
            return []
        ready = list(self.late_ready_ms)
        ready += [0.0] * (len(clock.calls) - len(ready))  # a stand-in's null blocks, without the frame
        rows = list(zip(clock.per_call_ms, clock.block_means(), ready, clock.calls))[NULL_WARMUP_BLOCKS:]
        return [round(wall - ready_ms / max(calls, 1) - mean, 4) for wall, mean, ready_ms, calls in rows]

    def _witness_wanted(self, bound: float) -> bool:
        """Whether a lazy witness is to be called now (:mod:`kernelgym.judge.witness`): there is a way to start one,
        none was tried yet, and ``bound`` (from the null calls' overhead) comes above
        :data:`~kernelgym.judge.witness.WITNESS_TRIGGER` of the candidate's synchronized median."""
        return self._witness_starter is not None and self.witness is None and \
            bound > WITNESS_TRIGGER * self.clock.median_ms()

    def _witness_round(self, block: int) -> int:
        """Start the lazy witness (off every GPU hold: its start, its memory, its ``ready``), then run candidate
        blocks of ``block`` calls, without probes, each after one of its null blocks, until it has its count (or
        fails). Returns the candidate blocks run."""
        starter, self._witness_starter = self._witness_starter, None
        with self.step("witness_blocks"):
            self.witness = starter()
            if self.witness is None:
                return 0
            self.witness.specs = self.null_specs  # the null calls' outputs, as the worker's own null blocks had
            asked = time.monotonic()
            # ahead of the evaluations waiting to start: this one holds its memory already and ends sooner with it
            # (behind them, every lazy witness of a busy pool waited out its 30 s: H100, a4a55bb)
            room = self.memory_hold.enter_context(self.admission.try_memory(self.witness_need,
                                                                            WITNESS_MEMORY_WAIT_S, ahead=True))
            self._memory_waited(time.monotonic() - asked)
            if room is None:
                self.witness.fail("its GPU memory was not to be had in time")
                return 0
            self.witness.wait_ready()
        added = 0
        while self.witness.wanted:
            self._checked_blocks(block, probes=False)
            added += 1
        return added

    def _witnessed_bound(self, latency: float, on_gpu: bool) -> tuple | None:
        """``(bound, fastest wall per call, its calls, overhead)`` in the witness's window: the fastest candidate
        block that had a counted witness block before it, less the witness's overhead (capped,
        :func:`~kernelgym.judge.witness.witness_overhead_ms`); ``None`` where the witness measured nothing."""
        if self.witness is None:
            return None
        overhead = witness_overhead_ms(self.witness.overhead_ms(), self.null_overhead_ms)
        walls = [(self.clock.per_call_ms[i], self.clock.calls[i]) for i in self._witnessed
                 if i < len(self.clock.per_call_ms)]
        if overhead is None or not walls:
            return None
        fastest, calls = min(walls)
        return lower_bound_ms(fastest, overhead + latency, calls, on_gpu), fastest, calls, overhead

    def _check_timed_calls(self, seed: int, first: int, n: int) -> None:
        """The checks of one timed block (of ``n`` calls, the first ``first`` over all blocks): its probe if it
        has one, and one or two of its other calls (step ``timed_checks``)."""
        with self.step("timed_checks"):
            probe, kind = self._block_probe
            if probe >= 0 and self._compare_timed_call(seed, first, probe, kind):
                self.probes_compared[kind] = self.probes_compared.get(kind, 0) + 1
            # two calls of a block when outputs are small: to move the median a candidate must cheat in more
            # than half of its calls, and then two random picks miss every cheat with probability below 1/4
            others = [i for i in range(n) if i != probe]
            picks = _RANDOM.sample(others, min(len(others), 2 if self._check_share >= 1.0 else 1))
            for index in sorted(picks):
                self._compare_timed_call(seed, first, index)
                self._compared_at.append(first + index)

    def probe_for_block(self, calls: int, force: int | None = None) -> tuple[int, int]:
        """Whether the next timed block has a *probe* and which: ``(call, outlier kind)``, or ``(-1, NO_OUTLIERS)``.
        A probe is one call of the block, at a place drawn from the OS's generator, whose inputs carry the
        outliers of a kind the trials found in the task's domain (ordinary or wide), with probability
        :data:`PROBE_SHARE` per block, and every kind once in one of the first :data:`PROBE_PLAN_BLOCKS` blocks, at
        block numbers drawn when timing starts (``force``: an outlier kind, always and of that kind; the timing
        ends with such blocks until every kind has had a probe compared); it is compared whenever its block is
        (its time counts as the others', and never in the compared calls' floor). The trials run before the
        timing, so a forward that counts its calls, or tells timed calls by the pauses around them, could be exact
        there alone and skip what only outliers need in its timed calls, where inputs were all standard: a softmax
        that dropped its row maximum passed every compared timed call (a red-team finding). A forward must now be
        right on outliers in any timed call too; it can see them in its inputs, and a forward that checks for them
        and takes another path then is right on every input."""
        number, self._blocks_timed = self._blocks_timed, self._blocks_timed + 1
        if force is not None:
            return _RANDOM.randrange(calls), force
        if not self._probe_kinds or PROBE_SHARE <= 0:  # no outliers in the domain, or probes off
            return -1, NO_OUTLIERS
        if self._probe_plan is None:  # every kind in one of the first blocks, so the final blocks are rarely needed
            places = _RANDOM.sample(range(max(PROBE_PLAN_BLOCKS, len(self._probe_kinds))), len(self._probe_kinds))
            self._probe_plan = dict(zip(places, self._probe_kinds))
        if number in self._probe_plan:
            return _RANDOM.randrange(calls), self._probe_plan[number]
        if secrets.randbelow(1 << 20) >= PROBE_SHARE * (1 << 20):
            return -1, NO_OUTLIERS
        return _RANDOM.randrange(calls), _RANDOM.choice(self._probe_kinds)

    def _compare_timed_call(self, seed: int, first: int, index: int, outlier: int = NO_OUTLIERS) -> bool:
        """Compare call ``index`` of the block just timed (its first call: ``first`` over all blocks, its seed
        ``seed``), a probe when ``outlier`` names a kind of outliers (:meth:`probe_for_block`). A probe whose
        reference has no finite outputs on its inputs (outliers beyond the task's domain for that seed) has nothing
        to be compared with: ``False``, and nothing asked of the worker."""
        with self.gpu(label="check"):  # the reference's forward and the transfer: never while timed
            # the reference first: the answer's wall time (wallclock.check_lower_bound_ms) is the worker's
            if outlier == NO_OUTLIERS:
                refs = self._reference_outputs(call_seed(seed, index), NO_OUTLIERS)
            else:
                refs = self._reference_outputs_in_domain(call_seed(seed, index), outlier)
                if refs is None or not all_finite(refs):
                    return False
            self._check_sent = time.perf_counter()
            self.send(Command.CHECK, index)
            self.compare(call_seed(seed, index), outlier,
                         f"timed call {first + index}" + (" (outlier inputs)" if outlier != NO_OUTLIERS else ""),
                         refs=refs, seal=self._block_seals[index])
        return True

    def _read_block(self, calls: int, null: bool = False, seeds=None) -> tuple[dict, list]:
        """The frames answering a block of ``calls`` calls: one seal per call (:data:`~kernelgym.judge.timing.SEAL_EVENT`,
        sent by the worker right after each call's sample, ``Worker._timed_block``), then the block's ``timing`` frame;
        the latter's header and the seals as sent (each checked by :meth:`_seals` where it is used). Sent with the
        block's times, at its end, the seals were made from the worker's lists, which a later call's forward could
        rewrite first (a red-team helper, round 36). More seals than calls are the candidate's doing. A seal frame
        that carries an integrity flag (the worker found its result channel pointed elsewhere right before writing it,
        ``worker._reclaim_channel``, round 38) ends the block there: the candidate's (``null``: the judge's own null
        block's, whose flag is the judge's fault, :meth:`_null_frame_unflagged`).

        ``seeds(index)``: the input seed of the block's call ``index``, sent (``Command.SEED_NEXT``) as soon as the
        seal of the call before it is read, and not before: the worker makes each call's inputs from a seed it gets
        only once the call before it returned and was sealed, so no forward knows a later call's inputs (round 42:
        given the block's seed with the block, a forward computed the whole block's outputs in its first call, together,
        and returned them one by one; :func:`kernelgym.judge.inputs.call_seed`). The worker asks for the seed right
        before it makes the call's inputs, outside the timed interval; the null blocks, whose overhead the runner's
        bound subtracts, wait for it as the candidate's blocks do."""
        seals = []
        while True:
            header = self.expect(SEAL_EVENT, Event.TIMING)
            if header.get("event") == Event.TIMING:
                return header, seals
            if integrity_flags(header):
                if null:
                    self._null_frame_unflagged(header)
                flags = integrity_flags(header)
                raise self.reject(str(flags[0][0]), f"while timed: {flags[0][1]}")
            if len(seals) >= calls:
                raise self.reject("timing_tampered", "the seals of the timed calls' outputs sent from the worker were "
                                                     "malformed or missing (more seals than calls)")
            seals.append(header.get("seal"))
            if seeds is not None and len(seals) < calls:
                self.send(Command.SEED_NEXT, seeds(len(seals)))

    def _raw_block(self, calls: int) -> list[float]:
        probe, kind = self._block_probe
        secret = self._block_seed  # never sent: the worker gets each call's seed in its turn (_read_block)
        self.send(Command.BLOCK, calls, call_seed(secret, 0), probe, kind)
        header, seals = self._read_block(calls, seeds=lambda index: call_seed(secret, index))
        times = self._block_times(header, calls)
        self._block_seals = self._seals(seals, calls)
        self.block_steps.append(step_report(header.get("step_ms")))
        self._require_timed_launches(header.get("own_launches"), calls)
        return times

    def _seals(self, seals, calls: int) -> list[dict]:
        """A candidate block's seals (``Worker._timed_block``: per call, the key of its snapshot's sample, the
        sample's digests, its outputs' layouts as returned and the inputs it wrote into), checked for form; the
        answer to a ``check`` of one of its calls must match its seal (:meth:`_receive_and_check`). The worker's own
        code sends one per call: anything else is the candidate's doing."""
        def layout_ok(entry) -> bool:
            return entry is None or isinstance(entry, dict)

        if not isinstance(seals, list) or len(seals) != calls or not all(
                isinstance(seal, dict) and isinstance(seal.get("key"), str) and seal["key"].isascii()
                and seal["key"].isdigit() and len(seal["key"]) <= 20 and isinstance(seal.get("samples"), list)
                and all(d is None or isinstance(d, str) for d in seal["samples"])
                and isinstance(seal.get("layouts"), list) and all(layout_ok(e) for e in seal["layouts"])
                and isinstance(seal.get("changed"), list)
                and all(isinstance(n, int) and not isinstance(n, bool) for n in seal["changed"]) for seal in seals):
            raise self.reject("timing_tampered", "the seals of the timed calls' outputs sent from the worker were "
                                                 "malformed or missing")
        return seals

    def _require_timed_launches(self, launched, calls: int) -> None:
        """Every timed call must launch one of the candidate's own Triton kernels, as every trial must
        (:meth:`_require_own_launches`): a forward that launched its kernel only in the trials and the profiled
        forward, which it can pick out by their order and the pauses around them, and let torch do the work in the
        timed calls, was ``ok`` (a seventh red-team helper). ``launched``: the worker's count per call (``None``
        where nothing is counted: CUDA candidates, whose launches happen in C++)."""
        if self.result.backend != "triton" or launched is None:
            return
        if not isinstance(launched, list) or len(launched) != calls or \
                not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in launched):
            raise self.reject("timing_tampered", "the launch counts sent from the worker were malformed")
        if 0 in launched and policy.applies("no_custom_kernel", self.result.torch_policy):
            raise self.reject("no_custom_kernel", f"none of the candidate's kernels was launched in timed call "
                                                  f"{len(self.clock.times) + launched.index(0)}")

    def _block_times(self, header: dict, calls: int) -> list[float]:
        """The times of a ``timing`` frame for a block of ``calls`` calls, checked."""
        flags = integrity_flags(header)
        if flags:
            raise self.reject(str(flags[0][0]), f"while timed: {flags[0][1]}")
        times = header.get("times_ms")
        if not isinstance(times, list) or len(times) != calls or \
                not all(isinstance(t, (int, float)) and 0 <= t < float("inf") for t in times):
            # the worker's own code sends well-formed, non-negative times: only the candidate can have changed them
            raise self.reject("timing_tampered", "the timings sent from the worker were malformed or impossible "
                                                 "(negative, infinite, miscounted)")
        return [float(t) for t in times]

    def check_wall_clock(self, base: dict, block: int) -> float:
        """The runner's lower bound on the candidate's time per call (:mod:`kernelgym.judge.wallclock`); rejects
        timings it contradicts by more than its factor."""
        # on a GPU the null calls' overhead (the worker's own per-call steps, in its process and under the host load
        # its blocks see), else the reference's (its blocks' steps, interleaved with the candidate's in this busy
        # process). The interpreter's per-call steps on a loaded CPU wander by tens of ms between the null blocks
        # at the start and the candidate's blocks later, beyond the CPU's pipe allowance: the reference's,
        # measured alongside, follow them
        reference_overhead = float(base.get("overhead_ms") or 0.0)
        measured = self.null_overhead_ms is not None and not self.settings.on_cpu
        overhead = self.null_overhead_ms if measured else reference_overhead
        on_gpu = not self.settings.on_cpu
        # the activity method's figure is the call's device span: the host latency a call has around its launches
        # (a null call's own synchronized time, launching nothing) is in the runner's clock but not in the figure
        # the bound caps, so it is left out of the bound too; otherwise any kernel whose host latency passed a
        # fifth of its synchronized time was raised by the bound (one cause among those of the 27 of 69 solutions
        # it raised on the H200 at 0a3b8d7). A forged span gains at most that latency, measured before any
        # candidate code ran
        latency = (self.null_call_ms or 0.0) if measured and self.reference.timing_method == "activity" else 0.0
        # a probe's inputs cost the worker more than a plain call's (their outliers are drawn on the host: 0.1% of
        # the positions of each input, made distinct), inside the block the runner's clock spans, and the null
        # blocks the overhead comes from had none. So the bound's fastest block is one without a probe: one more
        # block, without, where every block had one, and the blocks after a contradiction have none either. (On
        # the H100 the blocks of L1/15, L1/41 and L1/100 were of two kinds, 20-240 ms per call apart, and L1/41,
        # honest, was rejected once in three runs: its fastest block took 26.0 ms per call, the other runs' fast
        # blocks 4.2; docs/BENCHMARKS.md, twenty-third session)
        added = 0  # blocks this check added (without probes)
        if self._probed_blocks and all(self._probed_blocks):
            self._checked_blocks(block, probes=False)
            added += 1
        for attempt in range(EXTRA_BLOCKS + 1):
            fastest, calls = self.clock.fastest()
            bound = lower_bound_ms(fastest, overhead + latency, calls, on_gpu)
            if attempt == 0 and self._late_nulls_wanted(bound, measured):
                # the host's steps now, in the candidate's worker (wallclock.late_null_overhead_ms)
                added += self._late_null_round(block)
                late = self.late_null_overheads()
                if measured:
                    overhead = late_null_overhead_ms(max(0.0, min(late)) if late else None, overhead)
                fastest, calls = self.clock.fastest()
                bound = lower_bound_ms(fastest, overhead + latency, calls, on_gpu)
            if measured and attempt == 0 and self._witness_starter is not None and self._witness_wanted(bound):
                added += self._witness_round(block)  # a lazy witness (kernelgym.judge.witness), once
                fastest, calls = self.clock.fastest()
                bound = lower_bound_ms(fastest, overhead + latency, calls, on_gpu)
            # the bound in the witness's window, where it measured one (capped by the null calls' figure); the
            # lower of the two is kept: each is a lower bound on the candidate's time where its overhead is right
            # a rejection must hold with the typical null block's overhead too (wallclock.rejection_overhead_ms)
            lenient = lower_bound_ms(fastest, rejection_overhead_ms(self.null_overheads_ms, overhead) + latency,
                                     calls, on_gpu) if measured else bound
            witnessed = self._witnessed_bound(latency, on_gpu) if measured and self.witness is not None else None
            used, source, unwitnessed = overhead, _overhead_source(measured, self.late_clock is not None), bound
            late_overheads = self.late_null_overheads()
            if witnessed is not None and witnessed[0] < bound:
                bound, fastest, calls, used = witnessed
                source = "witness"
            self.bound_inputs = {"runner_fastest_wall_ms": fastest, "runner_fastest_block_calls": calls,
                                 "runner_overhead_ms": used, "runner_overhead_from": source,
                                 **(self.witness.report() if self.witness is not None else {}),
                                 **({"witnessed_blocks": list(self._witnessed),
                                     "unwitnessed_bound_ms": unwitnessed} if self.witness is not None else {}),
                                 "null_overhead_ms": self.null_overhead_ms,
                                 "null_overheads_ms": self.null_overheads_ms,
                                 "late_null_overheads_ms": late_overheads,
                                 "null_call_ms": self.null_call_ms, "latency_left_out_ms": latency,
                                 "reference_overhead_ms": reference_overhead,
                                 "runner_block_walls_ms": [round(w, 4) for w in self.clock.per_call_ms],
                                 "runner_block_probed": list(self._probed_blocks), "runner_blocks_added": added,
                                 "worker_block_cpu_ms": _rounded(self.clock.cpu_per_call_ms),
                                 "worker_block_cpu_wait_ms": _rounded(self.clock.cpu_wait_per_call_ms),
                                 # the worker's word on where the least-overhead null block's and the fastest
                                 # block's time per call went (a diagnostic of the bound's overhead)
                                 "null_block_steps_ms": steps_of_least(self.null_steps[NULL_WARMUP_BLOCKS:],
                                                                       self.null_overheads_ms),
                                 "fastest_block_steps_ms": steps_of_least(self.block_steps, self.clock.per_call_ms),
                                 "late_null_block_steps_ms": steps_of_least(self.late_null_steps[NULL_WARMUP_BLOCKS:],
                                                                            late_overheads),
                                 "synchronized_median_ms": self.clock.median_ms(),
                                 "runner_rejection_bound_ms": min(bound, lenient)}
            checks = check_lower_bound_ms(min(self.check_ms), on_gpu) if self.check_ms else 0.0
            reason = mismatch(self.clock.median_ms(), min(bound, lenient)) or \
                mismatch(self.clock.median_ms(), checks, "describing a compared call's output took")
            if not reason:
                return max(bound, checks)
            if attempt < EXTRA_BLOCKS:
                self._checked_blocks(block, probes=False)  # more blocks by the judge's clock before concluding
                added += 1
        # what the bound was made of stays with the verdict: a rejection by the runner's clock can be checked
        self.result.runtime_spread = {**self.bound_inputs, "runner_bound_ms": bound,
                                      "fastest_check_ms": min(self.check_ms) if self.check_ms else None}
        raise self.reject("timing_wall_mismatch", reason)


def _overhead_source(measured: bool, late: bool) -> str:
    """Where the bound's per-call overhead came from (``runner_overhead_from``): the reference's blocks (on the CPU),
    the null calls before the candidate loaded, or those and the late null blocks (:meth:`Session._late_null_round`)."""
    if not measured:
        return "reference"
    return "late_null_calls" if late else "null_calls"


#: what an outlier trial's record says about its inputs
OUTLIER_RECORDS = {OUTLIERS: "either_sign", SIGNED_OUTLIERS: "signed", NO_OUTLIERS: "none"}
#: the share of timed blocks that get a probe (:meth:`Session.probe_for_block`; 0: no probes at all), and how many
#: blocks of one probe of a kind the timing ends with at most while none of that kind was compared (a probe's
#: reference may leave the domain: not finite)
PROBE_SHARE = 0.25
FORCED_PROBES = 3
#: the first blocks among which each outlier kind's planned probe is placed (:meth:`Session.probe_for_block`)
PROBE_PLAN_BLOCKS = 4
#: the tasks whose inputs get a wide trial (:meth:`Session.wide_trial`)
WIDE_TASK_DTYPES = ("float32", "float64")
#: the wide trial's allowance (:meth:`Session.wide_allowances`): how many opposite pairs of random moves of the data
#: (four float64 forwards: on the CPU, a GLU of TF32-rounded operands failed the wide trial on none of 30 seeds
#: with them, on 7 of 30 with two independent moves), the least relative size of a move (TF32's truncation: 10
#: bits kept), and the factor on the largest change they make
WIDE_PERTURBATION_PAIRS = 2
#: the larger sample of moves drawn where the first leaves at most WIDE_AGAIN_MAX_ELEMENTS elements of an output
#: beyond the allowance (:meth:`Session._compare_wide`; honest TF32 kernels left 1 to 4)
WIDE_PERTURBATION_PAIRS_AGAIN = 8
WIDE_AGAIN_MAX_ELEMENTS = 16
WIDE_AGAIN_MAX_FIRST_S = 10.0
WIDE_MIN_REL = 2.0 ** -10
WIDE_SPREAD_FACTOR = 2.0


def compare_wide(compare: Callable[[tuple], TrialCheck], allowances_for: Callable[[int], tuple]):
    """The wide trial's rule (:meth:`Session._compare_wide`): ``compare(allowances)`` with the allowances of
    :data:`WIDE_PERTURBATION_PAIRS` pairs of moves (``allowances_for(pairs)``), and once more with
    :data:`WIDE_PERTURBATION_PAIRS_AGAIN` pairs where at most :data:`WIDE_AGAIN_MAX_ELEMENTS` elements were beyond
    and the first sample took at most :data:`WIDE_AGAIN_MAX_FIRST_S` (the second costs four times as much: on the
    host, where the GPU had no room for L1/15's float64 moves, the first took tens of seconds). Returns the last
    check, the pairs it used and their allowances."""
    for pairs in (WIDE_PERTURBATION_PAIRS, WIDE_PERTURBATION_PAIRS_AGAIN):
        started = time.monotonic()
        allowances = allowances_for(pairs)
        took = time.monotonic() - started
        check = compare(allowances)
        if (check.ok or check.beyond is None or check.beyond > WIDE_AGAIN_MAX_ELEMENTS
                or took > WIDE_AGAIN_MAX_FIRST_S):
            break
    return check, pairs, allowances


def trial_order(n_standard: int, n_outlier: int, wide: bool) -> list[tuple[int, str]]:
    """The correctness trials as ``(index, kind)``: ``n_standard`` standard, ``n_outlier`` outlier and (``wide``)
    one wide trial, in an order drawn from the OS's generator for every evaluation. In a fixed order a forward that
    counts its calls knows which ones carry outliers and can be right there only: a softmax that skipped its row
    maximum was ``ok`` on L1/28 by being exact at calls 6 and 7 alone (a red-team finding). Indices stay those of
    the fixed order (:func:`fixed_trial_order`), so every trial's secret seed is the same whatever its place."""
    order = fixed_trial_order(n_standard, n_outlier, wide)
    _RANDOM.shuffle(order)
    return order


def fixed_trial_order(n_standard: int, n_outlier: int, wide: bool) -> list[tuple[int, str]]:
    """The trials as ``(index, kind)`` in their indices' order: the standard ones, the outlier ones, the wide one."""
    return list(enumerate(["standard"] * n_standard + ["outlier"] * n_outlier + (["wide"] if wide else [])))


def integrity_flags(header: dict) -> list:
    """The ``[name, reason]`` pairs a worker's frame reports under ``integrity_flags``: each a flag of the worker's
    own (:data:`kernelgym.judge.frames.WORKER_FLAGS`, checked as the frame was read), the worker's evidence against
    the candidate, never its say."""
    return list(header.get("integrity_flags") or [])


def steps_of_least(steps: list, keys: list[float]) -> dict | None:
    """The entry of ``steps`` (a worker's per-step times of each block) at the least of ``keys`` (the blocks'
    overheads or walls, in the same order), or ``None`` where the two do not pair up."""
    if not keys or len(steps) != len(keys):
        return None
    return steps[min(range(len(keys)), key=keys.__getitem__)]


def _rounded(values: list[float | None]) -> list[float | None]:
    return [None if v is None else round(v, 4) for v in values]


def _has_floating(values: tuple) -> bool:
    return any(getattr(v, "is_floating_point", lambda: False)() for v in values)
