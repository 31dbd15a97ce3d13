"""Policies: callables ``policy(observation) -> str`` that answer a task with candidate text."""

from __future__ import annotations

from pathlib import Path

from kernelgym.tasks import BUNDLED_TASKS


class ReplayPolicy:
    """Answers each task with a stored candidate file: ``<root>/<backend>/<L1|L2|L3|X>/<stem>.py``.

    By default ``root`` is the bundled verified solutions (``tasks/solutions``). The answer is wrapped in a
    fenced python block, as an LLM would write it. Raises ``KeyError`` for a task with no stored file; use
    :meth:`has` to check first.
    """

    def __init__(self, root: str | Path | None = None, backend: str = "triton"):
        self.root = Path(root) if root is not None else BUNDLED_TASKS / "solutions"
        self.backend = backend

    def path(self, task_id: str) -> Path:
        prefix, stem = task_id.split("/", 1)
        return self.root / self.backend / prefix / f"{stem}.py"

    def has(self, task_id: str) -> bool:
        return self.path(task_id).is_file()

    def task_ids(self) -> list[str]:
        base = self.root / self.backend
        return sorted(f"{p.parent.name}/{p.stem}" for p in base.glob("*/*.py")) if base.is_dir() else []

    def __call__(self, observation: dict) -> str:
        task_id = observation["task_id"]
        path = self.path(task_id)
        if not path.is_file():
            raise KeyError(f"no stored {self.backend} solution for {task_id} under {self.root}")
        return "Here is my kernel.\n\n```python\n" + path.read_text() + "\n```\n"
