"""kernelgym: GPU-kernel optimisation as Gymnasium environments for code LLMs.

``import kernelgym`` registers the environment ids with Gymnasium: ``KernelBench-L1-v0`` ... (KernelBench's own
problems) and ``KernelGym-L1-v0`` ... (the suite bundled with kernelgym); see :mod:`kernelgym.envs.registration`.
"""

from __future__ import annotations

from kernelgym._version import __version__  # noqa: E402

from kernelgym.judge import EvalResult, evaluate  # noqa: E402
from kernelgym.tasks import (CATEGORIES, Task, TaskError, TaskSet, TaskSetUnavailable,  # noqa: E402
                             load_kernelbench, load_tasks)
from kernelgym.envs.registration import register_envs  # noqa: E402

register_envs()

__all__ = ["__version__", "CATEGORIES", "EvalResult", "Task", "TaskError", "TaskSet", "TaskSetUnavailable", "evaluate",
           "load_kernelbench", "load_tasks"]
