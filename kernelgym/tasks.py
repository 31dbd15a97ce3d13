"""Tasks: KernelBench-format reference programs and the sets they form.

A task is one Python file that defines ``class Model(nn.Module)``, ``get_inputs()`` and ``get_init_inputs()``,
with its shapes as module-level UPPER-CASE constants. kernelgym metadata lives in the same file as a literal dict
named ``KERNELGYM`` (read with :func:`ast.literal_eval`, never executed)::

    KERNELGYM = {
        "category": "MatrixMultiply",      # one of CATEGORIES
        "dtype": "float32",                # dtype of the main inputs/outputs
        "flops": "2 * M * N * K",          # formula of the module constants (optional)
        "bytes": "4 * (M * K + K * N + M * N)",
        "small": {"M": 64, "N": 48, "K": 32},   # constant overrides for the CPU (small-shape) variant
        "atol": 1e-2, "rtol": 1e-2,        # optional: override the dtype's default tolerance
        "check": "allclose",               # or "statistical" for Random tasks
    }

Files without ``KERNELGYM`` (plain KernelBench files) load too: category is guessed from the name, dtype is
float32, no small variant (the CPU mode then runs the default shapes).

Task ids are ``L{level}/{file stem}`` for ``level{N}/`` folders and ``X/{file stem}`` for ``extra/``. Every task
also names the set it belongs to (:attr:`Task.task_set`), since two sets may use the same ids for different
problems:

==================  =====================================================================================
task set            where its tasks come from
==================  =====================================================================================
``kernelgym``       the suite bundled with kernelgym (``kernelgym/suite/``): :func:`load_tasks` with no path
``kernelbench``     KernelBench's own problems: :func:`load_kernelbench` (a checkout, ``$KERNELBENCH_PATH``,
                    or the Hugging Face dataset ``ScalingIntelligence/KernelBench``)
any other name      a folder or file given to :func:`load_tasks`: the folder's (or file's) name
==================  =====================================================================================
"""

from __future__ import annotations

import ast
import fnmatch
import hashlib
import os
import re
import threading
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

CATEGORIES = (
    "Fusion", "Math", "LinearAlgebra", "Activation", "MatrixMultiply", "Reduce", "Index", "Loss",
    "Quantization", "Normalization", "Optimizer", "SpatialOps", "Convolution", "Random", "Pooling",
)

#: Default (atol, rtol) per dtype; a task may override either.
DEFAULT_TOLERANCE = {
    "float32": (1e-4, 1e-4),
    "float16": (1e-2, 1e-2),
    "bfloat16": (2e-2, 2e-2),
    "float64": (1e-8, 1e-8),
    "int8": (0.0, 0.0),
    "int32": (0.0, 0.0),
    "int64": (0.0, 0.0),
}

#: The bundled suite (``kernelgym/suite/``: ``level1/`` .. ``level3/``, ``extra/``, and ``solutions/``), package data.
BUNDLED_TASKS = Path(__file__).resolve().parent / "suite"

#: The name of the bundled suite's task set, and of KernelBench's own problems.
KERNELGYM_SET = "kernelgym"
KERNELBENCH_SET = "kernelbench"
#: Where KernelBench's problems come from when no path is given: this environment variable, then this dataset.
KERNELBENCH_ENV = "KERNELBENCH_PATH"
KERNELBENCH_DATASET = "ScalingIntelligence/KernelBench"
#: KernelBench's levels served by default (level 4 needs Hugging Face model weights at run time).
KERNELBENCH_LEVELS = (1, 2, 3)

_CATEGORY_HINTS = (
    ("Quantization", ("int8", "int4", "fp8", "quant")),
    ("Loss", ("loss", "entropy", "divergence")),
    ("Normalization", ("norm",)),
    ("Pooling", ("pool",)),
    ("Convolution", ("conv",)),
    ("MatrixMultiply", ("matmul", "gemm", "bmm", "matrix", "linear")),
    ("Activation", ("relu", "gelu", "sigmoid", "tanh", "softmax", "swish", "elu", "selu", "softplus", "hardtanh")),
    ("Reduce", ("sum", "mean", "max", "min", "argmax", "argmin", "reduc", "cumsum", "cumprod", "scan")),
    ("Optimizer", ("adam", "sgd", "optim")),
    ("Index", ("gather", "scatter", "index", "embedding", "topk")),
    ("Random", ("random", "dropout", "rand")),
)


class TaskError(ValueError):
    """A task file or task selection is invalid; the message says which and why."""


class TaskSetUnavailable(TaskError):
    """A named task set cannot be loaded on this machine; the one-line message says how to get it."""


@dataclass(frozen=True)
class Task:
    """One reference program plus its metadata.

    Attributes:
        id: stable identifier, e.g. ``"L1/1_matmul_square"``.
        level: KernelBench level (1, 2, 3); extra tasks declare theirs (default 1).
        category: one of :data:`CATEGORIES`.
        source: the full text of the reference file.
        dtype: name of the main dtype (key of :data:`DEFAULT_TOLERANCE`).
        atol, rtol: the tolerance contract used by the judge.
        flops, bytes: formulas (Python expressions over the module constants), or ``None``.
        small: constant overrides that give the small-shape (CPU) variant.
        check: ``"allclose"`` (element-wise) or ``"statistical"`` (moments only; Random tasks).
        path: the file it came from, if any.
        task_set: the set it belongs to (``"kernelgym"``, ``"kernelbench"``, a folder's name; ``""`` when the
            task was built by hand); with :attr:`id`, what names a task unambiguously.
    """

    id: str
    level: int
    category: str
    source: str
    dtype: str = "float32"
    atol: float = 1e-4
    rtol: float = 1e-4
    flops: str | None = None
    bytes: str | None = None
    small: dict = field(default_factory=dict)
    check: str = "allclose"
    path: str | None = None
    task_set: str = ""

    @property
    def name(self) -> str:
        return self.id.split("/", 1)[-1]

    @property
    def digest(self) -> str:
        """A short hash of the source: part of every cache key that depends on the task."""
        return hashlib.sha256(self.source.encode()).hexdigest()[:16]

    def load_module(self, small: bool = False) -> types.ModuleType:
        """Execute the reference source in a fresh module; with ``small`` apply the small-shape overrides.

        ``get_inputs``/``get_init_inputs`` read the module constants when called, so overriding the constants
        after execution changes the shapes they produce.
        """
        module = types.ModuleType(f"kernelgym_task_{self.digest}")
        module.__file__ = self.path or f"<task {self.id}>"
        code = compile(self.source, module.__file__, "exec")
        exec(code, module.__dict__)  # noqa: S102 - tasks are trusted reference programs
        if small:
            module.__dict__.update(self.small)
        for required in ("Model", "get_inputs", "get_init_inputs"):
            if not hasattr(module, required):
                raise TaskError(f"task {self.id}: the file defines no {required}")
        return module

    def shape_constants(self, small: bool = False) -> dict[str, Any]:
        """The module-level UPPER-CASE int/float constants (after small overrides when asked)."""
        module = self.load_module(small)
        return {k: v for k, v in vars(module).items()
                if k.isupper() and isinstance(v, (int, float)) and not isinstance(v, bool)}

    def evaluate_formula(self, which: str, small: bool = False) -> float | None:
        """Evaluate the ``flops`` or ``bytes`` formula over the shape constants; ``None`` when absent."""
        formula = getattr(self, which)
        if not formula:
            return None
        consts = self.shape_constants(small)
        try:
            return float(eval(formula, {"__builtins__": {}, "min": min, "max": max}, consts))  # noqa: S307
        except Exception as exc:  # a broken formula is a task bug
            raise TaskError(f"task {self.id}: cannot evaluate {which} formula {formula!r}: {exc}") from exc

    def to_dict(self) -> dict:
        return {"id": self.id, "level": self.level, "category": self.category, "dtype": self.dtype,
                "atol": self.atol, "rtol": self.rtol, "flops": self.flops, "bytes": self.bytes,
                "small": dict(self.small), "check": self.check, "source": self.source, "path": self.path,
                "task_set": self.task_set}

    @classmethod
    def from_dict(cls, data: dict) -> "Task":
        return cls(**data)


def read_metadata(source: str, where: str = "<source>") -> dict:
    """Return the literal ``KERNELGYM`` dict of a task source ({} when it has none); never executes the file."""
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise TaskError(f"{where}: not valid Python: {exc}") from exc
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "KERNELGYM"
                                                for t in node.targets):
            try:
                meta = ast.literal_eval(node.value)
            except ValueError as exc:
                raise TaskError(f"{where}: KERNELGYM must be a literal dict") from exc
            if not isinstance(meta, dict):
                raise TaskError(f"{where}: KERNELGYM must be a dict")
            return meta
    return {}


def guess_category(name: str) -> str:
    lowered = name.lower()
    for category, hints in _CATEGORY_HINTS:
        if any(h in lowered for h in hints):
            return category
    return "Fusion" if "_" in lowered and lowered.count("_") >= 3 else "Math"


_KNOWN_KEYS = {"category", "dtype", "flops", "bytes", "small", "atol", "rtol", "check", "level", "id"}


#: KernelBench's own tolerance per precision (atol = rtol), used for its problems (task set ``kernelbench``)
KERNELBENCH_TOLERANCE = {"float32": (1e-4, 1e-4), "float16": (1e-2, 1e-2), "bfloat16": (1e-2, 1e-2)}


def task_from_source(source: str, task_id: str, level: int, path: str | None = None, task_set: str = "") -> Task:
    """Build a :class:`Task` from file text; validates metadata and the presence of the required names."""
    where = path or task_id
    meta = read_metadata(source, where)
    unknown = set(meta) - _KNOWN_KEYS
    if unknown:
        raise TaskError(f"{where}: unknown KERNELGYM keys {sorted(unknown)}")
    for required in ("class Model", "def get_inputs", "def get_init_inputs"):
        if required not in source:
            raise TaskError(f"{where}: a KernelBench task needs `{required}`")
    category = meta.get("category") or guess_category(task_id)
    if category not in CATEGORIES:
        raise TaskError(f"{where}: category {category!r} is not one of {', '.join(CATEGORIES)}")
    dtype = meta.get("dtype", "float32")
    if dtype not in DEFAULT_TOLERANCE:
        raise TaskError(f"{where}: dtype {dtype!r} is not one of {', '.join(DEFAULT_TOLERANCE)}")
    atol, rtol = (KERNELBENCH_TOLERANCE if task_set == "kernelbench" else {}).get(dtype, DEFAULT_TOLERANCE[dtype])
    check = meta.get("check", "allclose")
    if check not in ("allclose", "statistical"):
        raise TaskError(f"{where}: check must be 'allclose' or 'statistical'")
    small = meta.get("small", {})
    if not isinstance(small, dict) or not all(isinstance(k, str) and k.isupper() for k in small):
        raise TaskError(f"{where}: small must map UPPER-CASE constant names to values")
    return Task(id=meta.get("id", task_id), level=int(meta.get("level", level)), category=category,
                source=source, dtype=dtype, atol=float(meta.get("atol", atol)), rtol=float(meta.get("rtol", rtol)),
                flops=meta.get("flops"), bytes=meta.get("bytes"), small=dict(small), check=check, path=path,
                task_set=task_set)


class TaskSet(Sequence[Task]):
    """An ordered, id-indexed collection of tasks with selection helpers."""

    def __init__(self, tasks: Iterable[Task]):
        self._tasks = list(tasks)
        self._by_id: dict[str, Task] = {}
        for task in self._tasks:
            if task.id in self._by_id:
                raise TaskError(f"duplicate task id {task.id!r}")
            self._by_id[task.id] = task

    def __len__(self) -> int:
        return len(self._tasks)

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return TaskSet(self._tasks[index])
        return self._tasks[index]

    def __iter__(self) -> Iterator[Task]:
        return iter(self._tasks)

    def __contains__(self, task_id: object) -> bool:
        return task_id in self._by_id

    @property
    def ids(self) -> list[str]:
        return [t.id for t in self._tasks]

    def get(self, task_id: str) -> Task:
        """The task with this id; a :class:`TaskError` naming close matches otherwise."""
        try:
            return self._by_id[task_id]
        except KeyError:
            close = [i for i in self._by_id if task_id.split("/")[-1] in i][:5]
            ids = list(self._by_id)
            hint = (f"; did you mean {', '.join(close)}?" if close else
                    f"; this set has {len(ids)} tasks, {ids[0]} .. {ids[-1]}" if ids else "; this set is empty")
            raise TaskError(f"unknown task id {task_id!r}{hint}") from None

    def select(self, levels: Iterable[int] | None = None, categories: Iterable[str] | None = None,
               pattern: str | None = None, ids: Iterable[str] | None = None, prefix: str | None = None) -> "TaskSet":
        """Tasks matching every given filter (level numbers, category names, an fnmatch id pattern, exact ids)."""
        tasks: list[Task] = list(self._tasks)
        if ids is not None:
            tasks = [self.get(i) for i in ids]
        if levels is not None:
            wanted_levels = {int(x) for x in levels}
            tasks = [t for t in tasks if t.level in wanted_levels]
        if categories is not None:
            wanted = set(categories)
            bad = wanted - set(CATEGORIES)
            if bad:
                raise TaskError(f"unknown categories {sorted(bad)}; known: {', '.join(CATEGORIES)}")
            tasks = [t for t in tasks if t.category in wanted]
        if pattern is not None:
            tasks = [t for t in tasks if fnmatch.fnmatch(t.id, pattern)]
        if prefix is not None:
            tasks = [t for t in tasks if t.id.startswith(prefix)]
        return TaskSet(tasks)

    def counts(self) -> dict[tuple[str, str], int]:
        """Number of tasks per (id prefix, category)."""
        out: dict[tuple[str, str], int] = {}
        for t in self._tasks:
            key = (t.id.split("/")[0], t.category)
            out[key] = out.get(key, 0) + 1
        return out

    def __repr__(self) -> str:
        return f"TaskSet({len(self)} tasks)"


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
    bundled suite, ``"kernelbench"`` for a KernelBench checkout, and the folder's (or file's) name otherwise.

    Raises:
        TaskError: the path does not exist or holds no valid task; the message names the file at fault.
    """
    root = Path(path) if path is not None else BUNDLED_TASKS
    if not root.exists():
        raise TaskError(f"no such task path: {root}")
    if task_set is None:
        bundled = root.resolve() == BUNDLED_TASKS.resolve()
        checkout = root.is_dir() and _kernelbench_checkout(root) is not None
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
        TaskError: the path does not exist or holds an invalid task.
    """
    wanted = sorted({int(level) for level in levels}) if levels is not None else list(KERNELBENCH_LEVELS)
    if path is None and os.environ.get(KERNELBENCH_ENV):
        path = os.environ[KERNELBENCH_ENV]
        if not Path(path).exists():
            raise TaskError(f"{KERNELBENCH_ENV}={path}: no such folder (expected a KernelBench checkout)")
    tasks = (load_tasks(path, task_set=KERNELBENCH_SET) if path is not None
             else _load_kernelbench_dataset(tuple(wanted)))
    return tasks.select(levels=wanted)


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


def _unavailable(reason: str, levels: Sequence[int]) -> str:
    bundled = f"KernelGym-L{levels[0]}-v0" if len(levels) == 1 else "KernelGym-v0"
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
