"""kernelgym: GPU-kernel optimisation as Gymnasium environments for code LLMs.

``import kernelgym`` registers the environment ids (``KernelBench-L1-v0`` ...) with Gymnasium.
"""

from __future__ import annotations

from kernelgym._version import __version__  # noqa: E402

from kernelgym.judge import EvalResult, evaluate  # noqa: E402
from kernelgym.tasks import CATEGORIES, Task, TaskError, TaskSet, load_tasks  # noqa: E402
from kernelgym.envs.registration import register_envs  # noqa: E402

register_envs()

__all__ = ["__version__", "CATEGORIES", "EvalResult", "Task", "TaskError", "TaskSet", "evaluate", "load_tasks"]
