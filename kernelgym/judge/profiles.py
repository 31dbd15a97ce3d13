"""Evaluation profiles: how much checking and timing one evaluation does, and its time limits.

=========  ===========================================================================================
quick      the RL inner loop: 5 standard trials + 1 outlier trial; timing until the 95% CI is within 2%
           of the median or 2 s; the eager reference cached per task (timed interleaved with the first
           candidate of the task); 1 trial again after timing; no torch.compile baseline. Stage limits:
           compile 120 s, correctness 60 s (GPU) / 120 s (CPU), timing 60 s.
full       benchmarking: 8 standard trials + 3 outlier trials; timing until the CI is within 1% or 10 s;
           the eager reference timed afresh, interleaved with the candidate, every time; a torch.compile
           baseline; 2 trials again after timing.
=========  ===========================================================================================
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
    compile_timeout_s: float = 120.0
    cuda_compile_timeout_s: float = 300.0
    correctness_timeout_s: float = 60.0
    cpu_correctness_timeout_s: float = 120.0
    timing_timeout_s: float = 60.0
    startup_timeout_s: float = 60.0

    def with_overrides(self, **changes) -> "EvalProfile":
        return replace(self, **changes)


PROFILES: dict[str, EvalProfile] = {
    "quick": EvalProfile("quick", trials=5, outlier_trials=1, recheck_after_timing=True,
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
