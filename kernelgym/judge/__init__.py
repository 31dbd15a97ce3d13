"""The judge: evaluates candidate kernel text against a task's reference in an isolated worker process."""

from __future__ import annotations

from kernelgym.judge.profiles import PROFILES, EvalProfile, get_profile
from kernelgym.judge.result import STAGES, STATUSES, EvalResult

__all__ = ["EvalResult", "EvalProfile", "PROFILES", "STAGES", "STATUSES", "Judge", "evaluate", "get_profile"]

_default_judges: dict = {}


def __getattr__(name):
    if name == "Judge":
        from kernelgym.judge.runner import Judge

        return Judge
    raise AttributeError(name)


def evaluate(task, source: str, backend: str = "triton", profile="quick", device: str | None = None,
             torch_policy: str = "partial") -> EvalResult:
    """Evaluate ``source`` (raw LLM text or a Python file) for ``task`` under ``torch_policy`` (``"strict"``,
    ``"partial"``, ``"off"``: :mod:`kernelgym.judge.policy`); never raises on the candidate's behalf.

    ``task`` may be a :class:`~kernelgym.tasks.Task` or a task id of the bundled suite.
    """
    from kernelgym.judge.runner import Judge
    from kernelgym.tasks import Task, load_tasks

    if not isinstance(task, Task):
        task = load_tasks().get(str(task))
    judge = _default_judges.get(device)
    if judge is None:
        judge = _default_judges[device] = Judge(device=device)
    return judge.evaluate(task, source, backend=backend, profile=profile, torch_policy=torch_policy)
