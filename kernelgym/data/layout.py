"""Where candidate files live on disk: the folder layouts that the replay policy and ``kernelgym eval`` read.

``<prefix>`` is a task id's prefix (``L1``, ``L2``, ``L3``, ``X``) and ``<stem>`` the task file's stem, so the
task id is ``<prefix>/<stem>``. Layouts understood under a root folder:

==============  ================================================  =========================================
layout          file                                              sample index
==============  ================================================  =========================================
by backend      ``<backend>/<prefix>/<stem>.py``                  0
by task id      ``<prefix>/<stem>.py``                            0
samples         ``[<backend>/]<prefix>/<stem>/<any name>.py``     position in name order (0, 1, ...)
flat            ``<prefix>_<stem>.py`` (e.g. ``L1_15_relu.py``)   0
flat by stem    ``<stem>.py`` (when no other task has that stem)  0
KernelBench     ``**/level_<L>_problem_<P>_sample_<S>_kernel.py``  S  (task: level L, stem starting ``<P>_``)
==============  ================================================  =========================================

Files and folders whose names start with ``_`` or ``.`` are ignored. A ``<backend>`` folder (``triton``,
``cuda``) that is not the requested backend is skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from kernelgym.judge.backends import BACKENDS

_PREFIX = re.compile(r"^(L\d+|X)$")
_FLAT = re.compile(r"^(L\d+|X)_(.+)$")
_KERNELBENCH = re.compile(r"^level_(\d+)_problem_(\d+)_sample_(\d+)_kernel$")
_LEADING_NUMBER = re.compile(r"^(\d+)(?:_|$)")


def problem_number(task_id: str) -> int | None:
    """The leading number of a task id's stem (``"L1/15_relu"`` → 15), or ``None`` when it has none."""
    match = _LEADING_NUMBER.match(task_id.split("/", 1)[-1])
    return int(match.group(1)) if match else None


@dataclass(frozen=True)
class CandidateFile:
    """One candidate file found under a root, and what its name says about the task it answers.

    Exactly one way of naming the task is set: ``task_id`` (path layouts), ``stem`` (flat by stem) or
    ``level`` + ``problem`` (KernelBench naming).
    """

    path: Path
    sample: int = 0
    task_id: str | None = None
    stem: str | None = None
    level: int | None = None
    problem: int | None = None

    def matches(self, task_id: str) -> bool:
        """True when this file answers ``task_id``."""
        if self.task_id is not None:
            return self.task_id == task_id
        if self.stem is not None:
            return task_id.split("/", 1)[-1] == self.stem
        return task_id.split("/", 1)[0] == f"L{self.level}" and problem_number(task_id) == self.problem


def _visible(parts: Iterable[str]) -> bool:
    return not any(p.startswith(("_", ".")) for p in parts)


def scan(root: str | Path, backend: str | None = None) -> list[CandidateFile]:
    """Every candidate file under ``root`` in a known layout, sorted by path; files in no layout are left out.

    Args:
        root: the folder to scan (recursively).
        backend: when given, files under a ``<backend>/`` folder of another backend are skipped.
    """
    root = Path(root)
    found: list[CandidateFile] = []
    sample_dirs: dict[Path, list[Path]] = {}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).parts
        if not _visible(rel):
            continue
        kb = _KERNELBENCH.match(path.stem)
        if kb:
            found.append(CandidateFile(path, int(kb.group(3)), level=int(kb.group(1)), problem=int(kb.group(2))))
            continue
        parts = list(rel)
        if len(parts) >= 3 and parts[0] in BACKENDS:
            if backend is not None and parts[0] != backend:
                continue
            parts = parts[1:]
        if len(parts) == 2 and _PREFIX.match(parts[0]):
            found.append(CandidateFile(path, 0, task_id=f"{parts[0]}/{path.stem}"))
        elif len(parts) == 3 and _PREFIX.match(parts[0]):
            sample_dirs.setdefault(path.parent, []).append(path)
        elif len(parts) == 1:
            flat = _FLAT.match(path.stem)
            found.append(CandidateFile(path, 0, task_id=f"{flat.group(1)}/{flat.group(2)}") if flat
                         else CandidateFile(path, 0, stem=path.stem))
    for folder, files in sample_dirs.items():
        task_id = f"{folder.parent.name}/{folder.name}"
        found.extend(CandidateFile(p, i, task_id=task_id) for i, p in enumerate(sorted(files)))
    return sorted(found, key=lambda c: (str(c.path)))


def candidates_for(files: Iterable[CandidateFile], task_id: str) -> list[CandidateFile]:
    """The files answering ``task_id``, ordered by sample index then path."""
    return sorted((f for f in files if f.matches(task_id)), key=lambda c: (c.sample, str(c.path)))


def assign(files: Iterable[CandidateFile], task_ids: Iterable[str]) -> tuple[list[tuple[str, CandidateFile]],
                                                                             list[tuple[CandidateFile, str]]]:
    """Map each file to the one task it answers among ``task_ids``.

    Returns ``(matched, unmatched)``: ``matched`` holds ``(task_id, file)`` pairs in path order; ``unmatched``
    holds ``(file, reason)`` for files that answer no task or several (an ambiguous flat stem), and for every
    file after the first (in path order) that answers the same task with the same sample index: the layouts
    name one task several ways (``L1/15_relu.py``, ``L1_15_relu.py``, ``15_relu.py``,
    ``triton/L1/15_relu.py``, ``level_1_problem_15_sample_0_kernel.py``, ``..._problem_015_...``), and a copy of
    one good answer under each name counted as several samples of that task in every metric (a seventeenth
    red-team helper, 2026-12-07).
    """
    ids = list(task_ids)
    matched: list[tuple[str, CandidateFile]] = []
    unmatched: list[tuple[CandidateFile, str]] = []
    first: dict[tuple[str, int], CandidateFile] = {}
    for f in files:
        hits = [t for t in ids if f.matches(t)]
        if len(hits) == 1:
            earlier = first.setdefault((hits[0], f.sample), f)
            if earlier is not f:
                unmatched.append((f, f"duplicate: sample {f.sample} of {hits[0]} is already answered by "
                                     f"{earlier.path.name}"))
                continue
            matched.append((hits[0], f))
        elif not hits:
            unmatched.append((f, "matches no known task id"))
        else:
            unmatched.append((f, f"ambiguous: matches {', '.join(hits[:4])} (name the file by task id, e.g. "
                                 f"{hits[0]}.py)"))
    return matched, unmatched
