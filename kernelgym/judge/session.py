"""One conversation between the runner and one worker process: frames read under stage deadlines, trials compared
on the trusted side, profile and timing recorded, the GPU lock honoured. Used by :class:`~kernelgym.judge.runner.Judge`.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING

from kernelgym.judge import sandbox
from kernelgym.judge.correctness import TrialCheck, check_description, compare_outputs, describe
from kernelgym.judge.process import LOG_TAIL_CHARS, rss_bytes, tail
from kernelgym.judge.profiles import EvalProfile
from kernelgym.judge.protocol import Deadline, FrameReader, ProtocolError
from kernelgym.judge.transfer import OutputFile, expected_nbytes, tensor_from_raw
from kernelgym.judge.result import EvalResult
from kernelgym.judge.verdict import Verdict
from kernelgym.judge.wallclock import EXTRA_BLOCKS, BlockClock, mismatch
from kernelgym.tasks import Task

if TYPE_CHECKING:
    from kernelgym.judge.runner import Judge


#: slowest copy rate allowed for an output (worker writes, runner reads), used to extend the stage's deadline
TRANSFER_BYTES_PER_S = 250e6


class Session:
    """One conversation with one worker process: reads its frames with stage deadlines, answers, decides."""

    def __init__(self, judge: "Judge", proc: subprocess.Popen, reader: FrameReader, result: EvalResult,
                 prof: EvalProfile, task: Task, init_seed: int, scratch: Path):
        self.judge, self.proc, self.reader, self.result, self.prof, self.task = judge, proc, reader, result, prof, task
        self.init_seed, self.scratch = init_seed, scratch
        self._shared = None
        self.judge_log: Path | None = None
        self.stage_started = time.monotonic()
        self.deadline = self.stage_started + prof.startup_timeout_s + prof.compile_timeout_s
        self.stage_name = "startup"

    # -- I/O --------------------------------------------------------------------------------------------
    def send_line(self, line: str) -> None:
        try:
            self.proc.stdin.write((line + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass  # the worker is gone; reading its channel reports how

    def next_frame(self) -> tuple[dict, bool]:
        """The next header, after enforcing the current stage's deadline and the memory limit."""
        while True:
            slice_end = min(self.deadline, time.monotonic() + 0.5)
            try:
                return self.reader.read_header(slice_end), True
            except Deadline:
                if time.monotonic() >= self.deadline:
                    limit = self.deadline - self.stage_started
                    raise Verdict("timeout", f"{self.stage_name} stage exceeded its {limit:.0f} s limit; the worker "
                                              f"was killed") from None
                self._check_memory()
            except EOFError:
                raise self._died() from None
            except ProtocolError as exc:
                raise Verdict("crashed", f"the worker sent a malformed message ({exc})") from None

    def _check_memory(self) -> None:
        rss = rss_bytes(self.proc.pid)
        if rss is not None and rss > self.judge.memory_limit_bytes:
            raise Verdict("crashed", f"the worker used {rss / 2**30:.1f} GiB of host memory, over the "
                                      f"{self.judge.memory_limit_bytes / 2**30:.1f} GiB limit; it was killed")

    def _died(self) -> Verdict:
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        how = sandbox.describe_exit(code, self.judge._sandboxed)
        if self.stage_name == "startup":  # before any candidate code ran: the judge's fault, said plainly
            last = " | ".join(tail(self.judge_log).strip().splitlines()[-3:]) if self.judge_log else ""
            return Verdict("crashed", f"the judge's worker process {how} while starting, before the candidate was "
                                      f"loaded (not the candidate's fault): {last[:400]}")
        return Verdict("crashed", f"the worker process {how} during the {self.stage_name} stage (the candidate "
                                   f"ended or crashed its process)")

    # -- protocol ---------------------------------------------------------------------------------------
    def enter_stage(self, name: str) -> None:
        prof = self.prof
        limits = {"compile": prof.cuda_compile_timeout_s if self.result.backend == "cuda" else prof.compile_timeout_s,
                  "correctness": prof.cpu_correctness_timeout_s if self.judge.on_cpu else prof.correctness_timeout_s,
                  "timing": prof.timing_timeout_s, "recheck": prof.correctness_timeout_s}
        now = time.monotonic()
        self.result.durations[self.stage_name] = round(now - self.stage_started, 3)
        self.stage_name, self.stage_started = name, now
        self.deadline = now + limits[name]
        if name in ("compile", "correctness", "timing"):
            self.result.stage = name

    def expect(self, *events: str) -> dict:
        header, _ = self.next_frame()
        event = header.get("event")
        if event == "stage":
            stage = header.get("stage")
            if stage not in ("compile", "correctness", "timing", "recheck"):
                raise Verdict("crashed", "the worker announced an unknown stage")
            self.enter_stage(stage)
            return self.expect(*events)
        if event not in events:
            self._handle_unexpected(header)
        return header

    def run(self, trials: list[dict], recheck: list[dict]) -> None:
        try:
            self.expect("ready")  # the worker has imported torch; GPU work starts only when allowed
            with self.judge.gpu_memory.reserve(self.judge.memory_need(self.task)):
                self.deadline = time.monotonic() + self.prof.startup_timeout_s  # waiting for room is not startup
                self._run_stages(trials, recheck)
        finally:
            self._release_shared()
            self.result.durations[self.stage_name] = round(time.monotonic() - self.stage_started, 3)

    def _run_stages(self, trials: list[dict], recheck: list[dict]) -> None:
        self._shared = self.judge.gpu_lock.shared()
        self._shared.__enter__()
        self.send_line("go")
        self.expect_stage("compile")
        self.expect_stage("correctness")
        self.check_trials(trials)
        self.check_profile(self.expect("profile"))
        if self.prof.compile_baseline and not self.judge.on_cpu:
            self.judge.compiled_reference(self.task)  # torch.compile's own compilation, outside the exclusive lock
        self._release_shared()
        with self.judge.gpu_lock.exclusive():  # the GPU to itself while timing (see kernelgym.distributed)
            self.deadline = time.monotonic() + self.prof.timing_timeout_s  # waiting for the GPU is not the
            self.send_line("time")                                         # candidate's time
            self.expect("timing_ready")
            times, baseline = self.time_against_reference()
            self.send_line("end")
            self.check_integrity(self.expect("timing_done"))
            self.record_timing(times, baseline)
            if recheck:
                self.check_trials(recheck)
            self.expect("done")

    def run_build(self) -> None:
        """Build-only session: the worker imports the candidate (building it) and stops."""
        try:
            self.expect("ready")
            self.send_line("go")
            self.expect_stage("compile")
            self.expect("done")
        finally:
            self.result.durations[self.stage_name] = round(time.monotonic() - self.stage_started, 3)

    def _release_shared(self) -> None:
        if self._shared is not None:
            self._shared.__exit__(None, None, None)
            self._shared = None

    def expect_stage(self, name: str) -> None:
        header, _ = self.next_frame()
        if header.get("event") == "stage" and header.get("stage") == name:
            self.enter_stage(name)
            return
        self._handle_unexpected(header)

    def _handle_unexpected(self, header: dict) -> None:
        if header.get("event") == "error":
            status = header.get("status") if header.get("status") in ("compile_error", "runtime_error") \
                else "runtime_error"
            self.result.log_tail = str(header.get("traceback", ""))[-LOG_TAIL_CHARS:]
            raise Verdict(status, f"{header.get('where', self.stage_name)}: {header.get('message', '')}")
        raise Verdict("crashed", f"the worker sent {header.get('event')!r} out of order")

    def check_trials(self, trials: list[dict]) -> None:
        init_seed = self.init_seed
        for trial in trials:
            header = self.expect("trial")
            if header.get("trial") != trial["trial"]:
                raise Verdict("crashed", "the worker answered a different trial than asked")
            refs = self.judge.reference_outputs(self.task, init_seed, trial)
            check = self._check_one(trial, header, refs)
            record = {"trial": trial["trial"], "stage": trial["stage"], **check.to_dict()}
            self.result.trials.append(record)
            if not check.ok:
                self.send_line("stop")
                where = "after timing" if self.stage_name == "recheck" else f"{trial['stage']} trial {trial['trial']}"
                raise Verdict("incorrect", f"wrong result in {where}: {check.reason}")
            self.send_line("next")

    def _check_one(self, trial: dict, header: dict, refs: tuple) -> TrialCheck:
        if header.get("mutated_inputs"):
            self.result.add_flag("input_mutation", f"the forward modified input(s) {header['mutated_inputs']}")
            return TrialCheck(False, f"the forward modified its input(s) {header['mutated_inputs']}")
        descs = header.get("descs") or []
        if len(descs) != len(refs):
            return TrialCheck(False, f"expected {len(refs)} output(s), got {len(descs)}")
        outs = []
        for i, (ref, desc) in enumerate(zip(refs, descs)):
            if desc.get("kind") == "subclass":
                self.result.add_flag("tensor_subclass", f"output {i} is a {desc.get('type')}, not a plain tensor")
                self.send_line("stop")
                raise Verdict("rejected", f"rejected: output {i} is a tensor subclass ({desc.get('type')}); "
                                           f"return plain tensors")
            bad = check_description(describe(ref), desc, i)
            if bad is not None:
                return bad
            if desc["kind"] == "tensor":
                try:
                    outs.append(self._receive_tensor(desc))
                except ProtocolError as exc:
                    return TrialCheck(False, f"output {i}: {exc}")
            else:
                outs.append(desc.get("value"))
        atol = self.task.atol * (10.0 if trial["stage"] == "outlier" else 1.0)
        return compare_outputs(refs, tuple(outs), atol, self.task.rtol, self.task.check)

    def _receive_tensor(self, desc: dict):
        """One output through a file this side made (:mod:`kernelgym.judge.transfer`). The stage's deadline grows by
        the time the copy may take at :data:`TRANSFER_BYTES_PER_S`: the size is the reference's, not the
        candidate's choice."""
        nbytes = expected_nbytes(desc)
        with OutputFile(self.scratch, nbytes) as out:
            self.deadline += nbytes / TRANSFER_BYTES_PER_S
            self.send_line(f"send {out.path}")
            self.expect("tensor")
            return tensor_from_raw(desc, out.read())

    def check_profile(self, header: dict) -> None:
        """Reject a candidate whose own kernels did not do the work (see docs/SECURITY.md, class 6)."""
        report = header.get("report") if isinstance(header.get("report"), dict) else {}
        names = report.get("candidate_kernels") or []
        res = self.result
        for flag in report.get("integrity_flags") or []:
            if isinstance(flag, list) and len(flag) == 2:
                res.add_flag(str(flag[0]), str(flag[1]))
        aten = report.get("aten_compute_ops") or []
        if aten:
            res.add_flag("torch_fallback", f"torch operators did compute in the forward: {', '.join(aten[:5])}")
        if self.judge.on_cpu:
            launched = sum(int(v) for k, v in (report.get("interpreter_launches") or {}).items() if k in names)
            if launched == 0:
                res.add_flag("no_custom_kernel", "none of the candidate's kernels was launched in the forward")
        else:
            res.kernel_coverage = report.get("coverage")
            if not report.get("launched"):
                res.add_flag("no_custom_kernel", "none of the candidate's kernels ran on the GPU in the forward")
            elif res.kernel_coverage is not None and res.kernel_coverage < self.judge.min_kernel_coverage:
                foreign = ", ".join(k["name"][:60] for k in report.get("foreign_kernels", [])[:3])
                res.add_flag("low_kernel_coverage", f"only {100 * res.kernel_coverage:.0f}% of GPU time was in the "
                                                    f"candidate's kernels (others: {foreign})")
        if res.flags:
            self.send_line("stop")
            raise Verdict("rejected", f"rejected: {res.flags[0]['reason']}")

    def time_against_reference(self) -> tuple[list[float], dict]:
        """Candidate timings (blocks run by the worker) interleaved with eager-reference timings (run here), see
        :func:`kernelgym.judge.timing.alternate`. The reference is timed afresh when nothing is cached or the
        profile asks for it (``full``), and cached; otherwise the cached reference is used and only the candidate
        is timed. Returns the candidate's per-call ms and the reference summary."""
        from kernelgym.judge.timing import alternate

        cfg = self.prof.cpu_timing if self.judge.on_cpu else self.prof.timing
        cached = None if self.prof.alternate_baseline else self.judge.cached_baseline(self.task)
        if cached is not None and "overhead_ms" not in cached:
            cached = None  # measured alone (older cache): time it again interleaved, which also gives the overhead
        candidate = BlockClock(self._candidate_block)
        blocks = {"candidate": candidate}
        if cached is None:
            reference = BlockClock(self.judge.reference_timer(self.task, self.prof).time_block)
            blocks["reference"] = reference
        samples = alternate(blocks, cfg)
        if cached is None:
            base = {**self.judge.store_baseline(self.task, samples["reference"], overhead_ms=reference.overhead_ms()),
                    "how": "interleaved"}
        else:
            base = {**cached, "how": "cached"}
        self.check_wall_clock(candidate, base, min(cfg.block, cfg.max_runs))
        return samples["candidate"], base

    def check_wall_clock(self, clock: BlockClock, base: dict, block: int) -> None:
        """Reject timings that the runner's own clock contradicts (:mod:`kernelgym.judge.wallclock`)."""
        reported = clock.median_ms()
        overhead = float(base.get("overhead_ms") or 0.0)
        on_gpu = not self.judge.on_cpu
        for attempt in range(EXTRA_BLOCKS + 1):
            reason = mismatch(reported, min(clock.per_call_ms), overhead, on_gpu)
            if not reason:
                return
            if attempt < EXTRA_BLOCKS:
                clock(block)  # another block by the judge's clock before concluding: a hiccup is not a lie
        self.result.add_flag("timing_wall_mismatch", reason)
        self.send_line("stop")
        raise Verdict("rejected", f"rejected: {reason}")

    def _candidate_block(self, calls: int) -> list[float]:
        self.send_line(f"block {calls}")
        times = self.expect("timing").get("times_ms")
        if not isinstance(times, list) or len(times) != calls or \
                not all(isinstance(t, (int, float)) and 0 <= t < float("inf") for t in times):
            # the worker's own code sends well-formed, non-negative times: only the candidate can have changed them
            reason = "the timings sent from the worker were malformed or impossible (negative, infinite, miscounted)"
            self.result.add_flag("timing_tampered", reason)
            self.send_line("stop")
            raise Verdict("rejected", f"rejected: {reason}")
        return [float(t) for t in times]

    def check_integrity(self, header: dict) -> None:
        """Reject a candidate that patched judge functions or left threads running while it was being timed."""
        flags = [f for f in header.get("integrity_flags") or [] if isinstance(f, list) and len(f) == 2]
        for name, reason in flags:
            self.result.add_flag(str(name), f"during timing: {reason}")
        if flags:
            self.send_line("stop")
            raise Verdict("rejected", f"rejected: {self.result.flags[-len(flags)]['reason']}")

    def record_timing(self, times: list[float], base: dict) -> None:
        from kernelgym.judge.timing import summarize

        summary = summarize(times)
        res = self.result
        res.runtime_ms = summary["median_ms"]
        res.runtime_spread = {**{k: summary[k] for k in ("iqr_ms", "ci95_ms", "n")},
                              "baseline": base.get("how"), "baseline_ci95_ms": base.get("ci95_ms"),
                              "baseline_n": base.get("n")}
        res.baseline_ms = base["median_ms"]
        res.timing_meaningful = not self.judge.on_cpu
        if res.runtime_ms and res.baseline_ms:
            res.speedup = res.baseline_ms / res.runtime_ms
        if self.judge.on_cpu or not res.runtime_ms:
            return
        if self.prof.compile_baseline:
            compiled = self.judge.baseline_ms(self.task, 0, self.prof, kind="compile")
            res.compile_baseline_ms = compiled.get("median_ms")
            if res.compile_baseline_ms:
                res.speedup_compile = res.compile_baseline_ms / res.runtime_ms
        self.record_efficiency()

    def record_efficiency(self) -> None:
        """IOU and MFU over this GPU's measured ceilings; beyond the vendor's peak is physically impossible."""
        from kernelgym.hardware import PRECISION_OF_DTYPE

        res, task = self.result, self.task
        seconds = res.runtime_ms / 1e3
        measured, vendor = self.judge.ceilings(), self.judge.hardware().peaks
        precision = PRECISION_OF_DTYPE.get(task.dtype, "fp32")
        for field_name, formula, unit, key in (("iou", "bytes", 1e12, "bandwidth_tbs"), ("mfu", "flops", 1e12, precision)):
            amount = task.evaluate_formula(formula)
            ceiling = measured.get(key) or vendor.get(key)
            if not amount or not ceiling:
                continue
            rate = amount / seconds / unit
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
