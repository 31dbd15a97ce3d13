"""Evaluation profiles: how much checking and timing one evaluation does, and its time limits.

=========  ===========================================================================================
quick      the RL inner loop: 5 standard trials + 1 outlier trial (+ 1 wide trial on a float32/float64 task,
           :meth:`kernelgym.judge.session.Session.wide_trial`); timing until the 95% CI is within 2%
           of the median or 2 s; the eager reference timed afresh, interleaved with the candidate, every
           time (a figure cached from another moment carries that moment's load and GPU temperature:
           on the H200 a task's cached eager figure was 9.7% off its value measured alone), except in a
           batch plan, whose evaluations of one task share the first confirmed figure of the batch
           (:mod:`kernelgym.judge.batch`); 1 trial again after timing (on the wide inputs where they apply);
           no torch.compile baseline. Stage
           limits: compile 120 s, correctness 60 s (GPU) / 120 s (CPU), timing 60 s.
full       benchmarking: 8 standard trials + 3 outlier trials (+ 1 wide); timing until the CI is within 1% or
           10 s; the eager reference timed afresh, interleaved with the candidate, every time; a torch.compile
           baseline; 2 trials again after timing (the last on the wide inputs where they apply).
=========  ===========================================================================================

Under both, the trials come in an order drawn for every evaluation (:func:`kernelgym.judge.session.trial_order`),
and a quarter of the timed blocks carry a probe with outlier inputs
(:meth:`kernelgym.judge.session.Session.probe_for_block`).

:func:`with_limits` replaces stage time limits by stage name (``limits={"compile": 30}`` for environments,
``--limit compile=30`` on the command line); the settable stages come from the stage table (:func:`settable_limits`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from kernelgym.judge.timing import TimingConfig


@dataclass(frozen=True)
class EvalProfile:
    name: str
    trials: int = 5
    outlier_trials: int = 1
    recheck_after_timing: bool = False
    timing: TimingConfig = field(default_factory=TimingConfig)
    #: timing on the CPU interpreter: a token measurement only (figures are flagged as not meaningful)
    cpu_timing: TimingConfig = field(default_factory=lambda: TimingConfig(warmup=1, min_runs=3, max_runs=3,
                                                                          budget_s=1.0, rel_ci=1.0))
    compile_baseline: bool = False
    #: time the eager reference afresh, interleaved with the candidate, in every evaluation (else: when not cached)
    alternate_baseline: bool = False
    #: evaluations of one task in one batch (a :class:`~kernelgym.judge.batch.BatchPlan`) share the eager figure
    #: that the first of them timed interleaved and confirmed alone, instead of each timing it again
    batch_baseline: bool = False
    compile_timeout_s: float = 120.0
    cuda_compile_timeout_s: float = 300.0
    correctness_timeout_s: float = 60.0
    cpu_correctness_timeout_s: float = 120.0
    timing_timeout_s: float = 60.0
    startup_timeout_s: float = 60.0

    def with_overrides(self, **changes) -> "EvalProfile":
        return replace(self, **changes)


PROFILES: dict[str, EvalProfile] = {
    "quick": EvalProfile("quick", trials=5, outlier_trials=1, recheck_after_timing=True, alternate_baseline=True,
                         batch_baseline=True,
                         timing=TimingConfig(warmup=2, min_runs=5, max_runs=100, budget_s=2.0, rel_ci=0.02)),
    "full": EvalProfile("full", trials=8, outlier_trials=3, recheck_after_timing=True, compile_baseline=True,
                        alternate_baseline=True,
                        timing=TimingConfig(warmup=5, min_runs=10, max_runs=1000, budget_s=10.0, rel_ci=0.01)),
}


def get_profile(profile: str | EvalProfile) -> EvalProfile:
    if isinstance(profile, EvalProfile):
        return profile
    try:
        return PROFILES[profile]
    except KeyError:
        raise ValueError(f"unknown evaluation profile {profile!r}; known: {', '.join(PROFILES)}") from None


#: Profile fields that bound one stage on another device or backend, set together with the stage's own field
#: (the session picks ``cuda_compile_timeout_s`` for CUDA builds, ``cpu_correctness_timeout_s`` on the CPU).
_LIMIT_VARIANTS = {"compile_timeout_s": ("cuda_compile_timeout_s",),
                   "correctness_timeout_s": ("cpu_correctness_timeout_s",)}


def settable_limits() -> dict[str, str]:
    """Stage name -> the :class:`EvalProfile` field holding its time limit, for the stages of
    :data:`~kernelgym.judge.protocol.STAGES` that have a limit of their own (``recheck`` shares correctness's)."""
    from kernelgym.judge.protocol import STAGES

    out: dict[str, str] = {}
    for st in STAGES:
        if st.limit is not None and st.limit not in out.values():
            out[st.name] = st.limit
    return out


def with_limits(profile: str | EvalProfile, limits: dict | None) -> str | EvalProfile:
    """``profile`` with some stages' time limits replaced, e.g. ``{"compile": 30, "correctness": 20}`` (seconds;
    a stage's limit applies on every device and backend). ``profile`` unchanged when ``limits`` is empty.

    Raises:
        ValueError: an unknown stage name (the message lists the settable ones) or a limit that is not a positive
            number of seconds.
    """
    if not limits:
        return profile
    settable = settable_limits()
    changes: dict[str, float] = {}
    for name, seconds in dict(limits).items():
        if name not in settable:
            from kernelgym.judge.protocol import STAGE_NAMES, stage

            owner = [n for n, f in settable.items() if name in STAGE_NAMES and f == stage(name).limit]
            why = (f"shares the limit of {owner[0]!r}" if owner else
                   "has no time limit" if name in STAGE_NAMES else "is not a stage")
            raise ValueError(f"cannot set a time limit for {name!r}: it {why}; stages with a limit: "
                             f"{', '.join(settable)}")
        try:
            value = float(seconds)
        except (TypeError, ValueError):
            value = float("nan")
        if not 0 < value < float("inf"):
            raise ValueError(f"the time limit of stage {name!r} must be a positive number of seconds, "
                             f"got {seconds!r}")
        for fld in (settable[name], *_LIMIT_VARIANTS.get(settable[name], ())):
            changes[fld] = value
    return get_profile(profile).with_overrides(**changes)


def parse_limits(specs) -> dict[str, float]:
    """``["compile=30", "correctness=20"]`` (the command line's ``--limit STAGE=SECONDS``) as a dict, checked as
    :func:`with_limits` checks it; ValueError naming the malformed item."""
    out: dict[str, str] = {}
    for spec in specs or ():
        name, sep, seconds = str(spec).partition("=")
        if not sep or not name.strip():
            raise ValueError(f"--limit {spec!r}: expected STAGE=SECONDS, e.g. compile=30 (stages: "
                             f"{', '.join(settable_limits())})")
        out[name.strip()] = seconds.strip()
    with_limits("quick", out)  # validates names and values
    return {name: float(seconds) for name, seconds in out.items()}
