"""Tasks: KernelBench-format reference programs and the sets they form (loaders: :mod:`kernelgym.tasks.loading`).

A task is one Python file that defines ``class Model(nn.Module)``, ``get_inputs()`` and ``get_init_inputs()``,
with its shapes as module-level UPPER-CASE constants. kernelgym metadata lives in the same file as a literal dict
named ``KERNELGYM`` (read with :func:`ast.literal_eval`, never executed)::

    KERNELGYM = {
        "category": "MatrixMultiply",      # one of CATEGORIES
        "dtype": "float32",                # dtype of the main inputs/outputs
        "precision": "int8",               # optional: the arithmetic's precision for MFU, where not the dtype's
        "flops": "2 * M * N * K",          # formula of the module constants (optional)
        "bytes": "4 * (M * K + K * N + M * N)",
        "small": {"M": 64, "N": 48, "K": 32},   # constant overrides for the CPU (small-shape) variant
        "atol": 1e-2, "rtol": 1e-2,        # optional: override the dtype's default tolerance
        "check": "allclose",               # or "statistical" for Random tasks
        "mode": "eval",                    # or "as_constructed" (see MODES)
    }

Files without ``KERNELGYM`` (plain KernelBench files) load too: category is guessed from the name, dtype is
float32, no small variant (the CPU mode then runs the default shapes).

The module's mode (:data:`MODES`) is part of a task's meaning: KernelBench's evaluator runs ``Model`` and
``ModelNew`` as constructed (an ``nn.Module`` starts in training mode, so ``BatchNorm`` normalises with the batch's
statistics), and its problems were written for that; the bundled suite was written for eval mode. The default is
therefore ``"eval"`` for the ``kernelgym`` set and ``"as_constructed"`` for every other set; ``KERNELGYM["mode"]``
overrides it. Reference and candidate are always built in the same mode.

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
import re
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

from kernelgym.hardware import PRECISIONS
from kernelgym.parsing import compile_source, parse

CATEGORIES = (
    "Fusion", "Math", "LinearAlgebra", "Activation", "MatrixMultiply", "Reduce", "Index", "Loss",
    "Quantization", "Normalization", "Optimizer", "SpatialOps", "Convolution", "Random", "Pooling",
)

#: how the judge leaves a built model: ``"eval"`` calls ``model.eval()``; ``"as_constructed"`` leaves the mode the
#: constructor left (training mode for a plain ``nn.Module``), as KernelBench's evaluator does
MODES = ("eval", "as_constructed")

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
BUNDLED_TASKS = Path(__file__).resolve().parent.parent / "suite"

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
        precision: the precision of the task's arithmetic (one of :data:`kernelgym.hardware.PRECISIONS`), whose
            ceiling its FLOP rate is measured against; ``None``: the dtype's (:func:`kernelgym.hardware.precision_of`).
        small: constant overrides that give the small-shape (CPU) variant.
        check: ``"allclose"`` (element-wise) or ``"statistical"`` (moments only; Random tasks).
        path: the file it came from, if any.
        task_set: the set it belongs to (``"kernelgym"``, ``"kernelbench"``, a folder's name; ``""`` when the
            task was built by hand); with :attr:`id`, what names a task unambiguously.
        mode: one of :data:`MODES`, the mode reference and candidate models run in (module docstring).
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
    precision: str | None = None
    small: dict = field(default_factory=dict)
    check: str = "allclose"
    path: str | None = None
    task_set: str = ""
    mode: str = "eval"

    @property
    def name(self) -> str:
        return self.id.split("/", 1)[-1]

    @property
    def key(self) -> str:
        """What names this task's reference unambiguously in caches: id, source digest and mode."""
        return f"{self.id}:{self.digest}:{self.mode}"

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
        code = compile_source(self.source, module.__file__, "exec")
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
                "precision": self.precision,
                "small": dict(self.small), "check": self.check, "source": self.source, "path": self.path,
                "task_set": self.task_set, "mode": self.mode}

    @classmethod
    def from_dict(cls, data: dict) -> "Task":
        return cls(**data)


def read_metadata(source: str, where: str = "<source>") -> dict:
    """Return the literal ``KERNELGYM`` dict of a task source ({} when it has none); never executes the file."""
    try:
        tree = parse(source)
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


def guess_category(name: str, level: int | None = None) -> str:
    """A category for a task without one in its metadata, from its name (``L1/19_ReLU``, ``12_Gemm_Scale``): the
    first of :data:`_CATEGORY_HINTS` whose hint the name holds; else ``Fusion`` for level 2 and above (fusions and
    whole architectures), ``Math`` for level 1 (single operations), and, the level unknown, ``Fusion`` for a name of
    four words or more. The level's path and the problem's number are not part of the name (``1_Scale_by_scalar`` was
    guessed ``Fusion`` from their underscores: user QA, round 4)."""
    lowered = re.sub(r"^\d+_", "", name.lower().rsplit("/", 1)[-1])
    for category, hints in _CATEGORY_HINTS:
        if any(h in lowered for h in hints):
            return category
    if level is not None:
        return "Fusion" if level >= 2 else "Math"
    return "Fusion" if lowered.count("_") >= 3 else "Math"


_KNOWN_KEYS = {"category", "dtype", "precision", "flops", "bytes", "small", "atol", "rtol", "check", "level", "id",
               "mode"}


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
    category = meta.get("category") or guess_category(task_id, level)
    if category not in CATEGORIES:
        raise TaskError(f"{where}: category {category!r} is not one of {', '.join(CATEGORIES)}")
    dtype = meta.get("dtype", "float32")
    if dtype not in DEFAULT_TOLERANCE:
        raise TaskError(f"{where}: dtype {dtype!r} is not one of {', '.join(DEFAULT_TOLERANCE)}")
    atol, rtol = (KERNELBENCH_TOLERANCE if task_set == "kernelbench" else {}).get(dtype, DEFAULT_TOLERANCE[dtype])
    precision = meta.get("precision")
    if precision is not None and precision not in PRECISIONS:
        raise TaskError(f"{where}: precision {precision!r} is not one of {', '.join(PRECISIONS)}")
    check = meta.get("check", "allclose")
    if check not in ("allclose", "statistical"):
        raise TaskError(f"{where}: check must be 'allclose' or 'statistical'")
    mode = meta.get("mode", "eval" if task_set == KERNELGYM_SET else "as_constructed")
    if mode not in MODES:
        raise TaskError(f"{where}: mode must be one of {', '.join(map(repr, MODES))}")
    small = meta.get("small", {})
    if not isinstance(small, dict) or not all(isinstance(k, str) and k.isupper() for k in small):
        raise TaskError(f"{where}: small must map UPPER-CASE constant names to values")
    return Task(id=meta.get("id", task_id), level=int(meta.get("level", level)), category=category,
                source=source, dtype=dtype, atol=float(meta.get("atol", atol)), rtol=float(meta.get("rtol", rtol)),
                flops=meta.get("flops"), bytes=meta.get("bytes"), precision=precision, small=dict(small), check=check,
                path=path, task_set=task_set, mode=mode)


def one_or_many(value, single: tuple = (str,)):
    """``[value]`` where ``value`` is one name given alone (an instance of ``single``: a string is one name, not a
    sequence of one-letter names), else ``value`` as it is (a sequence, or ``None``)."""
    return [value] if isinstance(value, single) else value


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
        if not isinstance(task_id, str):
            raise TaskError(f"a task id is a string such as {next(iter(self._by_id), 'L1/15_relu')!r}, got "
                            f"{type(task_id).__name__} {task_id!r}")
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
        """Tasks matching every given filter (level numbers, category names, an fnmatch id pattern, exact ids).

        One level, category or id may be given alone (``levels=1``, ``categories="Activation"``,
        ``ids="L1/15_relu"``): a string is one name, not a sequence of one-letter names."""
        levels, categories, ids = one_or_many(levels, (int, str)), one_or_many(categories), one_or_many(ids)
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
