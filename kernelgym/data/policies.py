"""Policies: callables ``policy(observation) -> str`` that answer a task with candidate text.

The observation is the environment's (``task_id``, ``prompt``, ``feedback``, ``turn`` ...). The collector
(:mod:`kernelgym.data.collect`) adds three keys: ``messages`` (the chat so far, OpenAI style, ending with the user
turn to answer), ``sample`` (the sample index of the episode) and ``seed`` (the episode's seed). A policy may also
define ``has(task_id) -> bool`` (the collector then skips the tasks it cannot answer) and ``name`` (recorded with
each episode).

Here: :class:`ReplayPolicy` (stored files), :func:`load_callable` (any ``module:function``) and
:func:`policy_name`. The OpenAI-compatible chat policy lives in :mod:`kernelgym.data.openai_policy`.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any, Callable, Iterable

from kernelgym.data.layout import CandidateFile, assign, candidates_for, scan
from kernelgym.tasks import BUNDLED_TASKS

Policy = Callable[[dict], str]


class ReplayPolicy:
    """Answers each task with a stored candidate file.

    ``root`` may be laid out in any of the layouts of :mod:`kernelgym.data.layout`: ``<backend>/<L1|L2|L3|X>/
    <stem>.py`` (the default root, the bundled verified solutions ``kernelgym/suite/solutions``), ``<L1>/<stem>.py``,
    one folder of samples per task, flat files named by task id, or KernelBench's
    ``level_L_problem_P_sample_S_kernel.py``.
    When a task has several files, the episode's ``sample`` index picks one (cycling). The answer is wrapped in a
    fenced python block, as an LLM would write it. Raises ``KeyError`` for a task with no stored file; use
    :meth:`has` to check first.

    ``task_ids`` (the ids of the tasks to be played) makes the files answer them as ``kernelgym eval`` does
    (:func:`~kernelgym.data.layout.assign`): a file that names several of them (``level_1_problem_4_...`` with two
    problems numbered 4, a stem two levels share) answers none, and a second file for a sample already answered is
    left out. Without it a file answers every task its name fits.
    """

    def __init__(self, root: str | Path | None = None, backend: str = "triton",
                 task_ids: Iterable[str] | None = None):
        self.root = Path(root) if root is not None else BUNDLED_TASKS / "solutions"
        self.backend = backend
        self.name = f"replay:{self.root}"
        self.task_ids_given = None if task_ids is None else list(task_ids)
        self._files: list[CandidateFile] | None = None

    @property
    def files(self) -> list[CandidateFile]:
        """The candidate files under ``root`` (scanned once), those that answer one given task each when
        ``task_ids`` was given."""
        if self._files is None:
            found = scan(self.root, self.backend) if self.root.is_dir() else []
            if self.task_ids_given is not None:
                found = [f for _, f in assign(found, self.task_ids_given)[0]]
            self._files = found
        return self._files

    def path(self, task_id: str, sample: int = 0) -> Path:
        """The file answering ``task_id`` for this sample index; ``KeyError`` when there is none."""
        found = candidates_for(self.files, task_id)
        if not found:
            raise KeyError(f"no stored {self.backend} candidate for {task_id} under {self.root}")
        return found[sample % len(found)].path

    def has(self, task_id: str) -> bool:
        return bool(candidates_for(self.files, task_id))

    def task_ids(self) -> list[str]:
        """Task ids named by path (KernelBench-named and flat-by-stem files need a task set to resolve)."""
        return sorted({f.task_id for f in self.files if f.task_id is not None})

    def __call__(self, observation: dict) -> str:
        path = self.path(observation["task_id"], int(observation.get("sample", 0)))
        return "Here is my kernel.\n\n```python\n" + path.read_text() + "\n```\n"


def load_callable(spec: str) -> Callable[..., Any]:
    """Resolve ``"package.module:function"`` or ``"path/to/file.py:function"`` (dots after the colon walk
    attributes, e.g. ``"mod:obj.method"``) to the callable it names.

    Raises:
        ValueError: the spec is malformed, the module or file cannot be imported, or the object is not callable.
    """
    module_part, sep, attr_path = spec.rpartition(":")
    if not sep or not module_part or not attr_path:
        raise ValueError(f"expected MODULE:FUNCTION or FILE.py:FUNCTION, got {spec!r}")
    try:
        if module_part.endswith(".py") or "/" in module_part:
            file = Path(module_part)
            if not file.is_file():
                raise ValueError(f"cannot read policy file {file}")
            name = f"kernelgym_policy_{abs(hash(str(file.resolve())))}"
            module_spec = importlib.util.spec_from_file_location(name, file)
            module = importlib.util.module_from_spec(module_spec)
            sys.modules[name] = module
            module_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(module_part)
    except ImportError as exc:
        raise ValueError(f"cannot import {module_part!r}: {exc}") from exc
    obj: Any = module
    for attr in attr_path.split("."):
        if not hasattr(obj, attr):
            raise ValueError(f"{module_part!r} has no attribute {attr_path!r}")
        obj = getattr(obj, attr)
    if not callable(obj):
        raise ValueError(f"{spec!r} is not callable")
    return obj


def policy_name(policy: Any) -> str:
    """A short name for records: the policy's ``name`` attribute, else its qualified name."""
    name = getattr(policy, "name", None)
    if isinstance(name, str) and name:
        return name
    target = policy if hasattr(policy, "__qualname__") else type(policy)
    return f"{getattr(target, '__module__', '?')}:{getattr(target, '__qualname__', repr(target))}"
