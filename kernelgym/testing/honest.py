"""What the honest-variety tests share (``tests/test_honest_variety*.py``): honest candidates in many styles that
the judge must pass, and the known refusals of some of them, each pinned to the check that makes it.

A refusal kept on purpose is a strict xfail that holds only for its documented reason: :func:`expect` raises
:class:`KnownFalseAlarm` when exactly that check fired, and fails plainly for any other verdict."""

from __future__ import annotations

from dataclasses import dataclass

from kernelgym.judge.profiles import get_profile

#: the judge's quick profile with room for the interpreter on a busy 2-core machine
PROFILE = get_profile("quick").with_overrides(compile_timeout_s=120, cpu_correctness_timeout_s=240)


@dataclass(frozen=True)
class FalseAlarm:
    """A known refusal of honest code: the flag that fires, a substring of its reason, and the check
    (file:function)."""
    flag: str
    says: str
    check: str

    def reason(self) -> str:
        return f"refused honest code: {self.flag} ({self.says!r}) from {self.check}"


@dataclass(frozen=True)
class Candidate:
    """An honest candidate for ``task``, with its known refusal under each policy (``None``: must be ok)."""
    task: str
    partial: FalseAlarm | None
    strict: FalseAlarm | None
    text: str


class KnownFalseAlarm(AssertionError):
    """Raised when an honest candidate is refused by exactly the documented check (so the strict xfail holds only for
    that reason; any other verdict is a plain failure)."""


def expect(result_flags: list[tuple[str, str]], ok: bool, alarm: FalseAlarm | None, what: str) -> None:
    """``ok`` with no flags, or (for a documented refusal) KnownFalseAlarm when exactly that check fired."""
    if alarm is not None and not ok:
        hits = [f for f in result_flags if f[0] == alarm.flag and alarm.says in f[1]]
        assert hits, f"{what}: refused, but not by the documented check ({alarm.flag}): {result_flags}"
        raise KnownFalseAlarm(f"{what}: {alarm.reason()}: {hits[0][1]}")
    assert ok and not result_flags, f"{what}: honest candidate not ok: {result_flags}"


def is_static(alarm: FalseAlarm | None) -> bool:
    """Whether the refusal comes from the static checks (guards or the reach check)."""
    return alarm is not None and alarm.check.startswith(("guards", "reach"))


def candidate_params(candidates: dict[str, Candidate], quick_runs: set[str], static_only: bool) -> list:
    """The ``(name, policy)`` parameters of an honest-variety file's tests, under each policy: a documented refusal
    as a strict xfail (for the static test, only one the static checks make), and every judge run but those in
    ``quick_runs`` (and the static refusals, which start no worker) marked slow."""
    import pytest

    out = []
    for name, cand in candidates.items():
        for policy in ("partial", "strict"):
            alarm = getattr(cand, policy)
            if static_only and not is_static(alarm):
                alarm = None
            marks = [pytest.mark.xfail(strict=True, raises=KnownFalseAlarm, reason=alarm.reason())] if alarm else []
            if not static_only and name not in quick_runs and not is_static(alarm):
                marks.append(pytest.mark.slow)
            out.append(pytest.param(name, policy, marks=marks, id=f"{name}-{policy}"))
    return out
