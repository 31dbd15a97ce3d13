"""EvalResult: the one record every layer passes along unchanged.

All fields are plain JSON data. This module is the single place where they are documented.

=================  ====================================================================================
field              meaning
=================  ====================================================================================
task_id            id of the task evaluated, e.g. ``"L1/1_matmul_square"``
backend            ``"triton"`` or ``"cuda"``
device             ``"cuda:0 (NVIDIA H200)"`` or ``"cpu (Triton interpreter)"``
profile            evaluation profile name (``quick`` / ``full``)
stage              furthest stage reached: format | static | compile | correctness | timing | done
status             ok | compile_error | runtime_error | timeout | incorrect | rejected | crashed | unsupported
message            one short human-readable sentence on the verdict
log_tail           the last lines of what the candidate printed / the traceback (bounded)
trials             list of per-trial correctness records: ``{"trial", "stage" (standard|outlier), "seed"
                   (the public part only), "ok", "max_abs_err", "max_rel_err", "worst_index", "reason"}``;
                   the stage ``wide`` is the trial of float32/float64 tasks whose positive outliers go beyond
                   float16's range (:data:`kernelgym.judge.inputs.WIDE_OUTLIERS`; left out where the reference is
                   not finite on them); outlier trials add ``"outliers"``: ``"either_sign"``, ``"signed"`` when the
                   reference was not
                   finite or raised on those (:data:`kernelgym.judge.inputs.SIGNED_OUTLIERS`), or ``"none"`` when
                   it raised on signed ones too (standard inputs then)
runtime_ms         candidate forward time: median (ms) or ``None`` when not timed
runtime_spread     candidate timing spread ``{"iqr_ms", "ci95_ms", "n"}`` (``ci95_ms``: the median's, see
                   :func:`kernelgym.judge.timing.median_ci95`); the bounds on its runtime (``"reported_median_ms"``,
                   ``"runner_bound_ms"`` and what it was made of: ``"runner_fastest_wall_ms"``,
                   ``"runner_fastest_block_calls"``, ``"runner_overhead_ms"``, ``"runner_overhead_from"``
                   (``"null_calls"``, on a GPU: measured in the worker before its candidate loaded, also given as
                   ``"null_overhead_ms"``, each counted null block's in ``"null_overheads_ms"``; ``"reference"``:
                   the eager reference's, ``"reference_overhead_ms"``), each candidate block's wall per call
                   (``"runner_block_walls_ms"``) and whether it carried a probe (``"runner_block_probed"``:
                   the bound's fastest block is one without; ``"runner_blocks_added"``: the blocks the bound's
                   check added, all without) and the median of the worker's synchronized times
                   (``"synchronized_median_ms"``: with the activity method the reported median is the spans'),
                   per call of each block how long the worker's threads ran on a CPU and waited for one
                   (``"worker_block_cpu_ms"``, ``"worker_block_cpu_wait_ms"``: the host's load on the blocks);
                   the worker's own per-step host times per call (:data:`kernelgym.judge.timing.BLOCK_STEPS`) of
                   the null block whose overhead was subtracted and of the fastest block
                   (``"null_block_steps_ms"``, ``"fastest_block_steps_ms"``: diagnostics, never judged by);
                   a null call's own synchronized time (``"null_call_ms"``) and what of it the bound left out
                   (``"latency_left_out_ms"``: all of it under the activity method on a GPU, else 0);
                   a ``timing_wall_mismatch`` rejection keeps these too; ``"compared_floor_ms"``,
                   ``"compared_calls"``, ``"fastest_check_ms"``); and the eager reference's: ``"baseline"``
                   (``"interleaved"``: timed in blocks alternating with the candidate's in this evaluation;
                   ``"batch"``: the figure its batch plan's first timed evaluation of the task measured and
                   confirmed; ``"cached"``: from the per-task cache, under a profile with
                   ``alternate_baseline=False``), ``"baseline_ci95_ms"``, ``"baseline_n"``
baseline_ms        eager PyTorch reference median (ms) on the same device, same method
compile_baseline_ms  torch.compile reference median (ms), when measured
speedup            baseline_ms / runtime_ms (``None`` if not timed)
speedup_compile    compile_baseline_ms / runtime_ms
timing_meaningful  False on CPU (interpreter) or when timing was skipped; speedups then carry no GPU meaning
iou, mfu           achieved bytes/s over peak bandwidth, achieved FLOP/s over peak (fractions), or ``None``
kernel_coverage    share of GPU time inside the candidate's own kernels (``None`` when not profiled)
top_kernels        profiling feedback (GPU): ``{"candidate": [...], "reference": [...]}``, each the forward's kernels
                   with the most device time (``name``, ``us``, ``share``, ``own``); empty on the CPU
torch_policy       the torch-use policy the candidate was judged under: ``strict`` | ``partial`` | ``off``
                   (:mod:`kernelgym.judge.policy`)
flags              list of ``{"name", "reason"}``: hack / anomaly flags raised by the guards
durations          seconds spent per stage, rounded to the millisecond, e.g. ``{"static": 0.001, "compile": 1.2, ...}``;
                   ``gpu_wait``: the part of them spent waiting for the GPU behind other evaluations (never
                   charged to the candidate's limits or timing budget); and steps inside the stages, without the
                   waits: ``trials`` (every correctness and recheck trial), ``reference`` (the runner computing the
                   reference's outputs, for the trials and the checked timed calls), ``candidate`` (waiting for the
                   worker's forward and its own checks), ``handover`` (taking the outputs over), ``compare``,
                   ``profiled_forward``
versions           library versions on the evaluating side
hardware           short hardware description (name, kind)
=================  ====================================================================================
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any

STAGES = ("format", "static", "compile", "correctness", "timing", "done")
STATUSES = ("ok", "compile_error", "runtime_error", "timeout", "incorrect", "rejected", "crashed", "unsupported")


#: flags that make a result a verdict about the judge or its caller (:attr:`EvalResult.judge_fault`)
JUDGE_FAULT_FLAGS = ("judge_error", "aborted")


def valid_text(text: str) -> str:
    """``text`` with every lone surrogate (``"\\ud800"``: no UTF-8 encodes it) written as its escape, so the text
    encodes as UTF-8 (a JSONL line, a Parquet cell, a tokenizer, a terminal); any other text unchanged. A worker's
    messages come through JSON, whose ``\\ud800`` escapes decode to such characters (a candidate raised one: the
    collector's writer failed and the whole run ended, a fifteenth red-team helper, 2026-12-07)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def valid_data(value: Any) -> Any:
    """``value`` (plain JSON data: dicts, lists, tuples, strings, numbers) with :func:`valid_text` applied to every
    string in it, keys included; the same object where nothing needed it."""
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, dict):
        items = [(valid_data(k), valid_data(v)) for k, v in value.items()]
        if all(k is k0 and v is v0 for (k, v), (k0, v0) in zip(items, value.items())):
            return value
        return dict(items)
    if isinstance(value, (list, tuple)):
        items = [valid_data(v) for v in value]
        if all(v is v0 for v, v0 in zip(items, value)):
            return value
        return type(value)(items) if isinstance(value, list) else tuple(items)
    return value


@dataclass
class EvalResult:
    """Verdict of one evaluation. See the module docstring for each field's meaning."""

    task_id: str
    backend: str = "triton"
    device: str = "cpu"
    profile: str = "quick"
    stage: str = "format"
    status: str = "crashed"
    message: str = ""
    log_tail: str = ""
    trials: list = field(default_factory=list)
    runtime_ms: float | None = None
    runtime_spread: dict = field(default_factory=dict)
    baseline_ms: float | None = None
    compile_baseline_ms: float | None = None
    speedup: float | None = None
    speedup_compile: float | None = None
    timing_meaningful: bool = False
    iou: float | None = None
    mfu: float | None = None
    kernel_coverage: float | None = None
    top_kernels: dict = field(default_factory=dict)
    torch_policy: str = "partial"
    flags: list = field(default_factory=list)
    durations: dict = field(default_factory=dict)
    versions: dict = field(default_factory=dict)
    hardware: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.stage not in STAGES:
            raise ValueError(f"unknown stage {self.stage!r}")
        if self.status not in STATUSES:
            raise ValueError(f"unknown status {self.status!r}")

    # -- derived views -------------------------------------------------------------------------------------
    @property
    def compiled(self) -> bool:
        """True when the candidate got past compilation (its module built and its kernels launched)."""
        return STAGES.index(self.stage) > STAGES.index("compile") or self.status in ("ok", "incorrect")

    @property
    def correct(self) -> bool:
        """True only when every correctness trial passed and no guard rejected the candidate."""
        return self.status == "ok"

    @property
    def judge_fault(self) -> bool:
        """True where the result is a verdict about the judge or its caller, not the candidate (a flag of
        :data:`JUDGE_FAULT_FLAGS`: the judge failed, ran short of GPU memory it had promised, or the evaluation was
        aborted): its status and reward say nothing of the text, so a trainer drops such a sample."""
        return any(isinstance(f, dict) and f.get("name") in JUDGE_FAULT_FLAGS for f in self.flags)

    def add_flag(self, name: str, reason: str) -> None:
        self.flags.append({"name": name, "reason": reason})

    def make_text_valid(self) -> EvalResult:
        """Apply :func:`valid_text` to every string of the result (message, log tail, flags, trials, ...): the
        candidate's words reach them (an exception's message), and every layer above writes them as UTF-8."""
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            mended = valid_data(value)
            if mended is not value:
                setattr(self, f.name, mended)
        return self

    # -- plain data ----------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["compiled"] = self.compiled
        data["correct"] = self.correct
        data["judge_fault"] = self.judge_fault
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "EvalResult":
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})

    @classmethod
    def from_json(cls, text: str) -> "EvalResult":
        return cls.from_dict(json.loads(text))
