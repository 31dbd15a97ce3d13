"""Tasks: the lowest layer. :mod:`~kernelgym.tasks.task` (Task, TaskSet, metadata, tolerances),
:mod:`~kernelgym.tasks.loading` (the loaders). Imports nothing else of kernelgym.

The public names are re-exported here, and their classes carry this package as their module
(``kernelgym.tasks.TaskSetUnavailable`` in a traceback), so ``from kernelgym.tasks import ...`` is the one path.
"""

from kernelgym.tasks.loading import load_kernelbench, load_task_set, load_tasks, solution_path
from kernelgym.tasks.task import (BUNDLED_TASKS, CATEGORIES, DEFAULT_TOLERANCE, KERNELBENCH_DATASET, KERNELBENCH_ENV,
                                  KERNELBENCH_LEVELS, KERNELBENCH_SET, KERNELBENCH_TOLERANCE, KERNELGYM_SET, Task,
                                  TaskError, TaskSet, TaskSetUnavailable, guess_category, read_metadata,
                                  task_from_source)

for _cls in (Task, TaskError, TaskSet, TaskSetUnavailable):
    _cls.__module__ = __name__
del _cls

__all__ = ["BUNDLED_TASKS", "CATEGORIES", "DEFAULT_TOLERANCE", "KERNELBENCH_DATASET", "KERNELBENCH_ENV",
           "KERNELBENCH_LEVELS", "KERNELBENCH_SET", "KERNELBENCH_TOLERANCE", "KERNELGYM_SET", "Task", "TaskError",
           "TaskSet", "TaskSetUnavailable", "guess_category", "load_kernelbench", "load_task_set", "load_tasks",
           "read_metadata", "solution_path", "task_from_source"]
