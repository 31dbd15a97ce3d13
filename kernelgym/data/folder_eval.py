"""Score a folder of generations (``kernelgym eval DIR``): find, evaluate, measure, report.

1. :func:`kernelgym.data.layout.scan` finds the candidate files (``L1/15_relu.py``, KernelBench's
   ``level_1_problem_15_sample_0_kernel.py``, ...) and :func:`~kernelgym.data.layout.assign` maps each to a task.
2. Each file is evaluated (concurrently, one Judge per thread). One row per file is appended to
   ``<out>/results.jsonl`` as soon as it is scored: ``{"file", "sha256", "task_id", "task_set", "sample",
   "level", "category", "result"}`` (``result``: the EvalResult dict). With ``resume`` the files already scored
   with the same content are not evaluated again.
3. :func:`kernelgym.scoring.metrics.tables` computes fast_p, the geometric-mean speedup and pass@k overall, per level and
   per category; :func:`kernelgym.scoring.report.write_report` writes ``report.json``, ``report.md`` and ``fast_p.png``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from kernelgym.scoring import metrics
from kernelgym.data.layout import CandidateFile, assign, scan
from kernelgym.data.writers import JsonlWriter, read_rows
from kernelgym.judge import policy
from kernelgym.evaluators.judge_pool import JudgePool
from kernelgym.progress import LiveCounts
from kernelgym.scoring.report import write_report
from kernelgym.tasks import TaskSet


@dataclass
class FolderEvaluation:
    """The outcome: one row per evaluated file, the files left out, the report and the files written."""

    rows: list[dict] = field(default_factory=list)
    unmatched: list[dict] = field(default_factory=list)
    report: dict = field(default_factory=dict)
    paths: dict[str, Path] = field(default_factory=dict)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:16]


def evaluate_folder(root: str | Path, tasks: TaskSet, out_dir: str | Path, *, backend: str = "triton",
                    profile: str = "quick", device: str | None = None, jobs: int | None = None,
                    resume: bool = False, ps: Iterable[float] = metrics.DEFAULT_PS,
                    ks: Iterable[int] = metrics.DEFAULT_KS, cache_dir: str | Path | None = None,
                    evaluator=None, progress: bool = True, torch_policy: str = "partial") -> FolderEvaluation:
    """Evaluate every candidate file under ``root`` against ``tasks`` and write the reports to ``out_dir``.

    ``evaluator``: a :class:`~kernelgym.evaluators.Evaluator` to evaluate on (default: local judges, ``jobs`` at
    once); ``torch_policy``: ``"strict"``, ``"partial"`` or ``"off"`` (:mod:`kernelgym.judge.policy`).

    Raises:
        OSError: ``root`` is not a readable folder.
        ValueError: no file under ``root`` answers a task of ``tasks``.
    """
    policy.check(torch_policy)
    root, out = Path(root), Path(out_dir)
    if not root.is_dir():
        raise OSError(f"cannot read folder {root}")
    out_resolved = out.resolve()
    files = [f for f in scan(root, backend) if out_resolved not in f.path.resolve().parents]
    matched, unmatched = assign(files, tasks.ids)
    evaluation = FolderEvaluation(unmatched=[{"file": str(f.path.relative_to(root)), "reason": why}
                                             for f, why in unmatched])
    if not matched:
        raise ValueError(f"no candidate file under {root} answers a known task (expected e.g. L1/15_relu.py or "
                         f"level_1_problem_15_sample_0_kernel.py)")
    results_path = out / "results.jsonl"
    out.mkdir(parents=True, exist_ok=True)
    if not resume and results_path.exists():
        results_path.unlink()
    writer = JsonlWriter.open(results_path)
    try:
        done = {(r.get("file"), r.get("sha256")): r for r in read_rows(results_path).rows if "result" in r}
        todo: list[tuple[str, CandidateFile, str]] = []
        for task_id, f in matched:
            text = f.path.read_text(errors="replace")
            rel = str(f.path.relative_to(root))
            row = done.get((rel, _digest(text)))
            if row is not None:
                evaluation.rows.append(row)
            else:
                todo.append((task_id, f, text))
        with JudgePool(device=device, cache_dir=cache_dir, max_workers=jobs, evaluator=evaluator) as pool, \
                LiveCounts(len(todo), "eval", ("compiled", "correct", "fast_1"), progress) as bar:
            items = [(tasks.get(task_id), text) for task_id, _, text in todo]
            for i, result in pool.imap(items, backend=backend, profile=profile, torch_policy=torch_policy):
                task_id, f, text = todo[i]
                task = tasks.get(task_id)
                data = result.to_dict()
                row = {"file": str(f.path.relative_to(root)), "sha256": _digest(text), "task_id": task_id,
                       "task_set": task.task_set, "sample": f.sample, "level": task.level,
                       "category": task.category, "result": data}
                writer.write(row)
                evaluation.rows.append(row)
                bar.advance(compiled=metrics.is_compiled(data), correct=metrics.is_correct(data),
                            fast_1=metrics.is_fast(data, 1.0))
    finally:
        writer.close()
    evaluation.rows.sort(key=lambda r: (r["task_id"], r["sample"], r["file"]))
    report = metrics.tables([r["result"] for r in evaluation.rows],
                            {r["task_id"]: r["category"] for r in evaluation.rows}, ps, ks)
    task_sets = sorted({tasks.get(r["task_id"]).task_set for r in evaluation.rows} - {""})
    report.update(source=str(root), task_set=", ".join(task_sets) or None, backend=backend,
                  profile=getattr(profile, "name", profile),
                  torch_policy=torch_policy,
                  device=evaluation.rows[0]["result"].get("device") if evaluation.rows else device,
                  files=len(evaluation.rows), unmatched_files=len(evaluation.unmatched),
                  unmatched=evaluation.unmatched)
    evaluation.report = report
    evaluation.paths = {"results": results_path, **write_report(report, out)}
    return evaluation
