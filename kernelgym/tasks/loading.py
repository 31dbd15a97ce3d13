"""Loading task sets: the bundled suite, a KernelBench-format folder or checkout, one file, a parquet file in
KernelBench's columns, or KernelBench's problems from the Hugging Face dataset."""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path
from typing import Iterable, Sequence

from kernelgym.tasks.task import (BUNDLED_TASKS, KERNELBENCH_DATASET, KERNELBENCH_ENV, KERNELBENCH_LEVELS,
                                  KERNELBENCH_SET, KERNELGYM_SET, Task, TaskError, TaskSet, TaskSetUnavailable,
                                  one_or_many, task_from_source)


_LEVEL_DIR = re.compile(r"level[_-]?(\d+)$", re.IGNORECASE)


def _natural_key(path: Path):
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", path.name)]


def _load_folder(root: Path, task_set: str) -> list[Task]:
    tasks: list[Task] = []
    level_dirs = sorted(d for d in root.iterdir() if d.is_dir() and _LEVEL_DIR.match(d.name))
    groups: list[tuple[Path, str, int]] = [(d, f"L{int(_LEVEL_DIR.match(d.name).group(1))}",
                                            int(_LEVEL_DIR.match(d.name).group(1))) for d in level_dirs]
    if (root / "extra").is_dir():
        groups.append((root / "extra", "X", 1))
    if not groups:  # a flat folder of task files
        match = _LEVEL_DIR.match(root.name)
        level = int(match.group(1)) if match else 1
        groups = [(root, f"L{level}", level)]
    for folder, prefix, level in groups:
        for file in sorted(folder.glob("*.py"), key=_natural_key):
            if file.name.startswith("_"):
                continue
            tasks.append(task_from_source(file.read_text(), f"{prefix}/{file.stem}", level, str(file), task_set))
    return tasks


def _tasks_from_rows(rows: Iterable[dict], where: str, task_set: str) -> list[Task]:
    """Tasks from rows in KernelBench's dataset columns: ``code``, ``level``, ``name`` (and ``problem_id``)."""
    tasks = []
    for row in rows:
        missing = {"code", "level", "name"} - set(row)
        if missing:
            raise TaskError(f"{where}: rows need columns code, level, name (missing {sorted(missing)})")
        level = int(row["level"])
        stem = Path(str(row["name"])).stem
        if row.get("problem_id") is not None and not stem.split("_")[0].isdigit():
            stem = f"{row['problem_id']}_{stem}"
        tasks.append(task_from_source(row["code"], f"L{level}/{stem}", level, f"{where}#{row['name']}", task_set))
    return tasks


def _load_parquet(path: Path, task_set: str) -> list[Task]:
    try:
        import pyarrow.parquet as pq
    except ImportError as exc:  # pragma: no cover - pyarrow is a dependency
        raise TaskError("reading parquet task files needs pyarrow") from exc
    return _tasks_from_rows(pq.read_table(path).to_pylist(), str(path), task_set)


def _kernelbench_checkout(root: Path) -> Path | None:
    """The problems folder of a KernelBench checkout (``<root>/KernelBench`` holding ``level1/`` ...), if any."""
    inner = root / "KernelBench"
    if inner.is_dir() and any(d.is_dir() and _LEVEL_DIR.match(d.name) for d in inner.iterdir()):
        return inner
    return None


def load_tasks(path: str | Path | None = None, task_set: str | None = None) -> TaskSet:
    """Load tasks from the bundled suite (``None``), a KernelBench-format folder (or a KernelBench checkout, whose
    problems live under ``KernelBench/level1`` ...), one file, or a parquet file in KernelBench's columns.

    ``task_set`` names the set every task is marked with (:attr:`Task.task_set`); by default ``"kernelgym"`` for the
    bundled suite, ``"kernelbench"`` for a KernelBench checkout or its ``KernelBench/`` problems folder (as
    :func:`load_kernelbench` marks both), and the folder's (or file's) name otherwise.

    Raises:
        TaskError: the path does not exist or holds no valid task; the message names the file at fault.
    """
    root = Path(path) if path is not None else BUNDLED_TASKS
    if not root.exists():
        raise TaskError(f"no such task path: {root}")
    if task_set is None:
        bundled = root.resolve() == BUNDLED_TASKS.resolve()
        checkout = root.is_dir() and (_kernelbench_checkout(root) is not None
                                      or _kernelbench_checkout(root.resolve().parent) == root.resolve())
        task_set = (KERNELGYM_SET if bundled else KERNELBENCH_SET if checkout
                    else root.resolve().stem if root.is_file() else root.resolve().name)
    if root.is_file():
        if root.suffix == ".parquet":
            return TaskSet(_load_parquet(root, task_set))
        if root.suffix == ".py":
            match = _LEVEL_DIR.match(root.parent.name)
            level = int(match.group(1)) if match else 1
            return TaskSet([task_from_source(root.read_text(), f"L{level}/{root.stem}", level, str(root), task_set)])
        raise TaskError(f"{root}: expected a folder, a .py task file or a .parquet file")
    tasks = _load_folder(_kernelbench_checkout(root) or root, task_set)
    if not tasks:
        raise TaskError(f"{root}: no task files found")
    return TaskSet(tasks)


def load_kernelbench(path: str | Path | None = None, levels: Iterable[int] | None = None) -> TaskSet:
    """KernelBench's own problems (task set ``"kernelbench"``) of the given levels (default 1, 2 and 3).

    They come from ``path`` (a KernelBench checkout, its ``KernelBench/`` folder, a folder of ``level<N>/`` files,
    or a parquet file in KernelBench's columns), else from the folder in ``$KERNELBENCH_PATH``, else from the
    Hugging Face dataset ``ScalingIntelligence/KernelBench`` through the ``datasets`` package (downloaded once,
    then read from its cache, also offline).

    Raises:
        TaskSetUnavailable: no path was given and the dataset cannot be loaded (``datasets`` is not installed, or
            there is no network and no cached copy); its one-line message says how to get the problems.
        TaskError: the path does not exist, holds an invalid task or no problem of ``levels`` (the message names
            the levels it holds), or it is kernelgym's bundled suite (or a folder of it): those are not
            KernelBench's problems (they were labelled ``kernelbench``, the extra set counted as level 1); the
            message names the ``KernelGym-*`` id to use.
    """
    levels = one_or_many(levels, (int, str))  # one level given alone
    wanted = sorted({int(level) for level in levels}) if levels is not None else list(KERNELBENCH_LEVELS)
    given = "tasks=" if path is not None else f"{KERNELBENCH_ENV}="
    if path is None and os.environ.get(KERNELBENCH_ENV):
        path = os.environ[KERNELBENCH_ENV]
        if not Path(path).exists():
            raise TaskError(f"{KERNELBENCH_ENV}={path}: no such folder (expected a KernelBench checkout)")
    if path is not None and is_bundled(path):
        raise TaskError(not_kernelbench(f"{given}{path}", wanted))
    tasks = (load_tasks(path, task_set=KERNELBENCH_SET) if path is not None
             else _load_kernelbench_dataset(tuple(wanted)))
    selected = tasks.select(levels=wanted)
    if not len(selected):  # "KernelBench-L3-v0" on a checkout without level3/ said only "no task matches"
        there = ", ".join(str(level) for level in sorted({t.level for t in tasks}))
        source = f"{given}{path}" if path is not None else KERNELBENCH_DATASET
        raise TaskError(f"{source} holds no KernelBench problem of level {', '.join(map(str, wanted))} "
                        f"(levels there: {there})")
    return selected


_DATASET_CACHE: dict[tuple[int, ...], TaskSet] = {}
_DATASET_LOCK = threading.Lock()


def _load_kernelbench_dataset(levels: tuple[int, ...]) -> TaskSet:
    """KernelBench's problems of ``levels`` from the Hugging Face dataset (one split per level), kept per process."""
    with _DATASET_LOCK:
        if levels not in _DATASET_CACHE:
            try:
                import datasets
            except ImportError:
                raise TaskSetUnavailable(_unavailable("the datasets package is not installed", levels)) from None
            tasks: list[Task] = []
            for level in levels:
                try:
                    rows = datasets.load_dataset(KERNELBENCH_DATASET, split=f"level_{level}")
                except Exception as exc:  # offline without a cached copy, no such split, hub errors
                    reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
                    raise TaskSetUnavailable(_unavailable(reason, levels)) from None
                tasks += _tasks_from_rows(rows, f"{KERNELBENCH_DATASET}/level_{level}", KERNELBENCH_SET)
            _DATASET_CACHE[levels] = TaskSet(tasks)
        return _DATASET_CACHE[levels]


def is_bundled(path: str | Path) -> bool:
    """Whether ``path`` is kernelgym's bundled suite or a folder or file inside it."""
    resolved, suite = Path(path).resolve(), BUNDLED_TASKS.resolve()
    return resolved == suite or suite in resolved.parents


def _bundled_id(levels: Sequence[int]) -> str:
    return f"KernelGym-L{levels[0]}-v0" if len(levels) == 1 else "KernelGym-v0"


def not_kernelbench(what: str, levels: Sequence[int]) -> str:
    """The one-line refusal of kernelgym's bundled suite where KernelBench's own problems are asked for."""
    return (f"{what} is kernelgym's bundled suite, not KernelBench's problems (the KernelBench-* ids serve only "
            f"KernelBench's own): use {_bundled_id(levels)} (or KernelGym-X-v0 for the extra set), or pass a "
            "KernelBench checkout")


def _unavailable(reason: str, levels: Sequence[int]) -> str:
    bundled = _bundled_id(levels)
    return (f"KernelBench's problems are not available here ({reason}): set {KERNELBENCH_ENV} to a KernelBench "
            f"checkout or pass tasks=PATH, or `pip install datasets` and be online once to download "
            f"{KERNELBENCH_DATASET} (cached after that); kernelgym's bundled suite needs neither: {bundled}")


def load_task_set(name: str, path: str | Path | None = None, levels: Iterable[int] | None = None) -> TaskSet:
    """A task set by name: ``"kernelgym"`` (the bundled suite, or the tasks at ``path``: :func:`load_tasks`) or
    ``"kernelbench"`` (KernelBench's own problems: :func:`load_kernelbench`, limited to ``levels``)."""
    if name == KERNELBENCH_SET:
        return load_kernelbench(path, levels)
    if name == KERNELGYM_SET:
        return load_tasks(path)
    raise TaskError(f"unknown task set {name!r}; known: {KERNELGYM_SET}, {KERNELBENCH_SET}")


def solution_path(task: Task, backend: str = "triton", root: Path | None = None) -> Path:
    """Where the verified reference solution of ``task`` lives:
    ``kernelgym/suite/solutions/<backend>/<L1>/<stem>.py``."""
    prefix, stem = task.id.split("/", 1)
    return (root or BUNDLED_TASKS / "solutions") / backend / prefix / f"{stem}.py"
