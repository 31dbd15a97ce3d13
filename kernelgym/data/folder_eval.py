"""Score a folder of generations (``kernelgym eval DIR``): find, evaluate, measure, report.

1. :func:`kernelgym.data.layout.scan` finds the candidate files (``L1/15_relu.py``, KernelBench's
   ``level_1_problem_15_sample_0_kernel.py``, ...) and :func:`~kernelgym.data.layout.assign` maps each to a task.
2. Each file is evaluated (concurrently, one Judge per thread). One row per file is appended to
   ``<out>/results.jsonl`` as soon as it is scored: ``{"file", "sha256", "task_id", "task_set", "sample",
   "level", "category", "settings", "result"}`` (``result``: the EvalResult dict; ``settings``: what the verdict
   depends on besides the file, :func:`settings_of`). With ``resume`` the files already scored with the same
   content, for the same task and under the same settings, are not evaluated again (unless their verdict was the
   judge's own failure, ``judge_fault``: those are, and ``report["judge_faults"]`` lists them until then); a file
   scored again (changed, or under other settings, or after a judge fault) replaces its earlier line when the run ends (:func:`_one_line_per_file`: the file is
   rewritten to a temporary name and renamed, so it holds one line per file and loses no other line).
3. :func:`kernelgym.scoring.metrics.tables` computes fast_p, the geometric-mean speedup and pass@k overall, per level and
   per category; :func:`kernelgym.scoring.report.write_report` writes ``report.json``, ``report.md`` and ``fast_p.png``.

The denominators are the task set given (``tasks``), not the files found: every task gets as many samples as the
task with the most, and each sample no file supplies counts as a failed result (status ``"missing"``), so leaving
out the tasks one fails, or giving more samples to the tasks one solves, raises no figure (a seventeenth red-team
helper, 2026-12-07: six copies of one ReLU under six names and no answer to the other tasks had fast_0 6/7).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from kernelgym.scoring import metrics
from kernelgym.data.layout import CandidateFile, assign, problem_number, scan
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
    """The whole SHA-256 of the file's text (16 hex digits, 64 bits, could be made to collide in 2**32 tries)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _task_digest(task) -> str:
    return hashlib.sha256(repr((task.source, task.dtype, task.atol, task.rtol, task.small, task.check, task.mode,
                                task.flops, task.bytes, task.precision)).encode("utf-8", "surrogatepass")
                          ).hexdigest()[:32]


def _profile_key(profile) -> str:
    if isinstance(profile, str):
        return profile
    return repr(dataclasses.asdict(profile)) if dataclasses.is_dataclass(profile) else repr(profile)


def settings_of(task, *, backend: str, profile, torch_policy: str, device: str | None) -> dict:
    """What a file's verdict depends on besides its text: a row of ``results.jsonl`` is reused by ``resume`` only
    under the same settings (a row judged under ``torch_policy="off"`` was reused by a ``strict`` run and reported
    as ``strict``; a seventeenth red-team helper, 2026-12-07)."""
    from kernelgym._version import __version__

    return {"task_id": task.id, "task_set": task.task_set, "task": _task_digest(task), "backend": backend,
            "profile": _profile_key(profile), "torch_policy": torch_policy, "device": device,
            "kernelgym": __version__}


def missing_result(task_id: str) -> dict:
    """The result that stands for a sample no file supplied: failed (never compiled, correct or timed)."""
    return {"task_id": task_id, "status": "missing", "stage": "format", "compiled": False, "correct": False,
            "speedup": None, "timing_meaningful": False, "flags": [], "message": "no file answers this sample"}


def _reusable(row: dict, rel: str, text: str, settings: dict) -> bool:
    """Whether ``resume`` may keep ``row`` as the verdict on file ``rel``: same text, task and settings, and not
    the judge's own failure (``judge_fault``: no verdict on the file, so it is evaluated again; it was kept and
    reported as the file's failure in every later report)."""
    result = row.get("result")
    return (row.get("file") == rel and row.get("sha256") == _digest(text) and row.get("settings") == settings
            and row.get("task_id") == settings["task_id"] and isinstance(result, dict)
            and result.get("task_id") == settings["task_id"] and not metrics.is_judge_fault(result))


def _one_line_per_file(path: Path) -> None:
    """Keep only the last line of each file in ``results.jsonl`` (``resume`` appended a second line for a file it
    scored again), in the order of those last lines; every other line is kept. Written to a temporary name,
    fsync-ed and renamed, so a crash leaves the old file or the new one, never half of one."""
    rows = read_rows(path, warn=False).rows
    last = {r.get("file"): i for i, r in enumerate(rows)}
    if len(last) == len(rows):
        return
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.unlink(missing_ok=True)
    with JsonlWriter.open(tmp) as writer:
        for i, row in enumerate(rows):
            if last[row.get("file")] == i:
                writer.write(row)
    os.replace(tmp, path)


def nothing_matched(root: Path, tasks: TaskSet, unmatched: list[dict], shown: int = 3) -> str:
    """The one-line refusal of a folder none of whose files answers a task of ``tasks``: why for the first
    ``shown`` files left out (``unmatched``: ``{"file", "reason"}``), and names that would match, made from the
    first task of ``tasks`` (the bundled suite's ``L1/15_relu`` was suggested for KernelBench's problems, and an
    ambiguous file's reason was dropped)."""
    example = tasks.ids[0] if len(tasks) else "L1/15_relu"
    level, number = example.split("/", 1)[0][1:], problem_number(example)
    named = f"{example}.py" + (f" or level_{level}_problem_{number}_sample_0_kernel.py"
                               if level.isdigit() and number is not None else "")
    why = "; ".join(f"{u['file']}: {u['reason']}" for u in unmatched[:shown])
    more = f"; and {len(unmatched) - shown} more" if len(unmatched) > shown else ""
    found = f": {why}{more}" if unmatched else ": it holds no candidate file"
    return f"no candidate file under {root} answers a task of the {len(tasks)} selected{found} (expected e.g. {named})"


def evaluate_folder(root: str | Path, tasks: TaskSet, out_dir: str | Path, *, backend: str = "triton",
                    profile: str = "quick", device: str | None = None, jobs: int | None = None,
                    resume: bool = False, ps: Iterable[float] = metrics.DEFAULT_PS,
                    ks: Iterable[int] = metrics.DEFAULT_KS, cache_dir: str | Path | None = None,
                    evaluator=None, progress: bool = True, torch_policy: str = "partial") -> FolderEvaluation:
    """Evaluate every candidate file under ``root`` against ``tasks`` and write the reports to ``out_dir``.

    ``evaluator``: a :class:`~kernelgym.evaluators.Evaluator` to evaluate on (default: local judges, ``jobs`` at
    once); ``torch_policy``: ``"strict"``, ``"partial"`` or ``"off"`` (:mod:`kernelgym.judge.policy`).

    Every task of ``tasks`` counts in the report (see the module docstring): narrow ``tasks`` to the ones the
    folder is meant to answer. A file that is a link to a file outside ``root`` is not read.

    Raises:
        OSError: ``root`` is not a readable folder.
        ValueError: no file under ``root`` answers a task of ``tasks``, or ``out_dir`` holds candidate files
            (it is ``root``, or a folder of it the candidates are in: they were skipped, and the error said no file
            answered a task); nothing is written then.
    """
    policy.check(torch_policy)
    root, out = Path(root), Path(out_dir)
    if not root.is_dir():
        raise OSError(f"cannot read folder {root}")
    out_resolved, root_resolved = out.resolve(), root.resolve()
    found = scan(root, backend)
    inside_out = [f for f in found if out_resolved in (f.path.parent.resolve(), *f.path.parent.resolve().parents)]
    if inside_out:
        raise ValueError(f"the output folder {out} holds candidate files of {root} (e.g. "
                         f"{inside_out[0].path.relative_to(root)}); write the reports to a folder outside them "
                         f"(--out; default {root_resolved.name}-eval beside {root})")
    outside = [f for f in found if root_resolved not in f.path.resolve().parents]
    files = [f for f in found if f not in outside]
    matched, unmatched = assign(files, tasks.ids)
    unmatched += [(f, "a link to a file outside the folder") for f in outside]
    evaluation = FolderEvaluation(unmatched=[{"file": str(f.path.relative_to(root)), "reason": why}
                                             for f, why in unmatched])
    if not matched:
        raise ValueError(nothing_matched(root, tasks, evaluation.unmatched))
    results_path = out / "results.jsonl"
    out.mkdir(parents=True, exist_ok=True)
    if not resume and results_path.exists():
        results_path.unlink()
    writer = JsonlWriter.open(results_path)
    try:
        done = {r.get("file"): r for r in read_rows(results_path).rows if isinstance(r, dict)}
        todo: list[tuple[str, CandidateFile, str]] = []
        for task_id, f in matched:
            text = f.path.read_text(errors="replace")
            rel = str(f.path.relative_to(root))
            row = done.get(rel)
            task = tasks.get(task_id)
            settings = settings_of(task, backend=backend, profile=profile, torch_policy=torch_policy, device=device)
            if row is not None and _reusable(row, rel, text, settings):
                evaluation.rows.append({**row, "sample": f.sample, "level": task.level, "category": task.category})
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
                       "category": task.category,
                       "settings": settings_of(task, backend=backend, profile=profile, torch_policy=torch_policy,
                                               device=device),
                       "result": data}
                writer.write(row)
                evaluation.rows.append(row)
                bar.advance(compiled=metrics.is_compiled(data), correct=metrics.is_correct(data),
                            fast_1=metrics.is_fast(data, 1.0))
    finally:
        writer.close()
    _one_line_per_file(results_path)
    evaluation.rows.sort(key=lambda r: (r["task_id"], r["sample"], r["file"]))
    per_task: dict[str, int] = {}
    for r in evaluation.rows:
        per_task[r["task_id"]] = per_task.get(r["task_id"], 0) + 1
    samples = max(per_task.values(), default=1)
    missing = {t: samples - per_task.get(t, 0) for t in tasks.ids if per_task.get(t, 0) < samples}
    results = [r["result"] for r in evaluation.rows]
    results += [missing_result(t) for t, count in missing.items() for _ in range(count)]
    report = metrics.tables(results, {t.id: t.category for t in tasks}, ps, ks)
    task_sets = sorted({t.task_set for t in tasks} - {""})
    devices = sorted({str(r["result"].get("device")) for r in evaluation.rows})
    report.update(source=str(root), task_set=", ".join(task_sets) or None, backend=backend,
                  profile=getattr(profile, "name", profile),
                  torch_policy=torch_policy,
                  device=", ".join(devices) if devices else device,
                  files=len(evaluation.rows), unmatched_files=len(evaluation.unmatched),
                  unmatched=evaluation.unmatched, samples_per_task=samples,
                  missing_samples=sum(missing.values()),
                  judge_faults=sorted(r["file"] for r in evaluation.rows if metrics.is_judge_fault(r["result"])),
                  missing_tasks=sorted(t for t in missing if t not in per_task))
    evaluation.report = report
    evaluation.paths = {"results": results_path, **write_report(report, out)}
    return evaluation
