"""The benchmark's numbers, not one verdict: what a folder of solution files (written by whoever is scored) can do to
``kernelgym eval DIR``'s fast_p, geometric mean and pass@k without doing the work (a seventeenth red-team helper,
2026-12-07). Every test here failed before its mend."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import GOOD, TEST_TASKS, InstantEvaluator
from kernelgym.data.folder_eval import evaluate_folder
from kernelgym.data.layout import assign, scan
from kernelgym.data.records import EpisodeRecord
from kernelgym.scoring import metrics
from kernelgym.tasks import load_tasks

BAD = "class ModelNew:\n    pass\n"  # InstantEvaluator: incorrect


@pytest.fixture
def two_tasks(tmp_path):
    """A task set of two tasks: L1/1_scaled_relu and a copy of it, L1/2_scaled_relu_again."""
    root = tmp_path / "tasks" / "level1"
    root.mkdir(parents=True)
    shutil.copy(TEST_TASKS / "level1" / "1_scaled_relu.py", root / "1_scaled_relu.py")
    shutil.copy(TEST_TASKS / "level1" / "1_scaled_relu.py", root / "2_scaled_relu_again.py")
    tasks = load_tasks(tmp_path / "tasks")
    assert tasks.ids == ["L1/1_scaled_relu", "L1/2_scaled_relu_again"]
    return tasks


def write(root, rel, text):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_one_answer_under_several_names_is_one_sample(tmp_path, two_tasks):
    """Six names of sample 0 of one task (every layout, a zero-padded problem number) counted as six correct samples:
    with the other task failed, fast_0 was 6/7 where it is 1/2."""
    gens = tmp_path / "gens"
    for rel in ("L1/1_scaled_relu.py", "L1_1_scaled_relu.py", "1_scaled_relu.py", "triton/L1/1_scaled_relu.py",
                "level_1_problem_1_sample_0_kernel.py", "level_1_problem_001_sample_0_kernel.py"):
        write(gens, rel, GOOD)
    write(gens, "L1/2_scaled_relu_again.py", BAD)
    matched, unmatched = assign(scan(gens, "triton"), two_tasks.ids)
    assert sorted(t for t, _ in matched) == ["L1/1_scaled_relu", "L1/2_scaled_relu_again"]
    assert len(unmatched) == 5 and all(why.startswith("duplicate: sample 0 of L1/1_scaled_relu") for _, why in unmatched)

    evaluation = evaluate_folder(gens, two_tasks, tmp_path / "out", evaluator=InstantEvaluator(), progress=False)
    overall = evaluation.report["overall"]
    assert overall["n"] == 2 and overall["correct"] == 1
    assert overall["fast_p"]["fast_0"] == pytest.approx(0.5)
    assert len(evaluation.report["unmatched"]) == 5


def test_a_task_without_a_file_counts_as_failed(tmp_path, two_tasks):
    """Leaving out the task one fails: fast_0 and pass@1 were 1.0 over the one file left."""
    gens = tmp_path / "gens"
    write(gens, "L1/1_scaled_relu.py", GOOD)
    evaluation = evaluate_folder(gens, two_tasks, tmp_path / "out", evaluator=InstantEvaluator(), progress=False)
    report = evaluation.report
    assert report["missing_tasks"] == ["L1/2_scaled_relu_again"] and report["missing_samples"] == 1
    assert report["overall"]["tasks"] == 2 and report["overall"]["n"] == 2
    assert report["overall"]["fast_p"]["fast_0"] == pytest.approx(0.5)
    assert report["overall"]["pass_at_k"]["pass@1"] == pytest.approx(0.5)
    assert "L1/2_scaled_relu_again" in (tmp_path / "out" / "report.md").read_text()
    # the rows written are still the files' own: no made-up row in results.jsonl
    assert len((tmp_path / "out" / "results.jsonl").read_text().splitlines()) == 1
    # a narrower task set is the way to score a part of it
    narrow = evaluate_folder(gens, two_tasks.select(ids=["L1/1_scaled_relu"]), tmp_path / "out2",
                             evaluator=InstantEvaluator(), progress=False)
    assert narrow.report["overall"]["fast_p"]["fast_0"] == 1.0 and narrow.report["missing_samples"] == 0


def test_more_samples_for_the_task_one_solves_raise_no_figure(tmp_path, two_tasks):
    """Three copies of the good answer as samples of one task and one failing sample of the other: fast_0 was 3/4
    and pass@2 1.0 (the failing task, with fewer than 2 samples, left out of it); every task now counts as many
    samples as the one with the most, the ones not given failed."""
    gens = tmp_path / "gens"
    for i in range(3):
        write(gens, f"L1/1_scaled_relu/{i}.py", GOOD)
    write(gens, "L1/2_scaled_relu_again/0.py", BAD)
    evaluation = evaluate_folder(gens, two_tasks, tmp_path / "out", evaluator=InstantEvaluator(), progress=False,
                                 ks=(1, 2))
    overall = evaluation.report["overall"]
    assert evaluation.report["samples_per_task"] == 3 and evaluation.report["missing_samples"] == 2
    assert overall["n"] == 6 and overall["fast_p"]["fast_0"] == pytest.approx(0.5)
    assert overall["pass_at_k"] == pytest.approx({"pass@1": 0.5, "pass@2": 0.5})


def test_resume_reuses_a_row_only_for_the_same_task_and_settings(tmp_path, two_tasks):
    """A row judged under ``torch_policy="off"`` was reused by a ``strict`` run (the report said ``strict``); a row
    forged or left by another task set was reused for any file of the same name and text."""
    gens = tmp_path / "gens"
    write(gens, "L1/1_scaled_relu.py", GOOD)
    out = tmp_path / "out"
    first = InstantEvaluator()
    evaluate_folder(gens, two_tasks, out, evaluator=first, progress=False, torch_policy="off")
    assert first.policies == ["off"]

    same = InstantEvaluator()
    evaluate_folder(gens, two_tasks, out, evaluator=same, progress=False, torch_policy="off", resume=True)
    assert same.policies == []  # unchanged file, task and settings: reused

    stricter = InstantEvaluator()
    evaluation = evaluate_folder(gens, two_tasks, out, evaluator=stricter, progress=False, torch_policy="strict",
                                 resume=True)
    assert stricter.policies == ["strict"]
    assert [r["result"]["torch_policy"] for r in evaluation.rows] == ["strict"]
    for profile in ("full",):
        other = InstantEvaluator()
        evaluate_folder(gens, two_tasks, out, evaluator=other, progress=False, torch_policy="strict", resume=True,
                        profile=profile)
        assert other.policies == ["strict"]

    # a forged row: right file name and digest, another task's verdict
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    forged = dict(rows[-1], task_id="L1/2_scaled_relu_again")
    forged["result"] = dict(forged["result"], task_id="L1/2_scaled_relu_again")
    forged["settings"] = dict(forged["settings"], task_id="L1/2_scaled_relu_again")
    write(gens, "L1/2_scaled_relu_again.py", BAD)
    forged["file"] = "L1/2_scaled_relu_again.py"
    forged["sha256"] = rows[-1]["sha256"]  # the digest of GOOD, not of this file's text
    with open(out / "results.jsonl", "a") as f:
        f.write(json.dumps(forged) + "\n")
    again = InstantEvaluator()
    evaluation = evaluate_folder(gens, two_tasks, out, evaluator=again, progress=False, torch_policy="strict",
                                 resume=True, profile="full")
    assert again.policies == ["strict"]  # the forged row's digest is not this file's: judged
    assert {r["task_id"]: r["result"]["status"] for r in evaluation.rows} == {
        "L1/1_scaled_relu": "ok", "L1/2_scaled_relu_again": "incorrect"}


def test_a_link_to_a_file_outside_the_folder_is_not_read(tmp_path, two_tasks):
    gens = tmp_path / "gens"
    write(gens, "L1/1_scaled_relu.py", GOOD)
    secret = write(tmp_path, "elsewhere/secret.py", GOOD)
    (gens / "L1" / "2_scaled_relu_again.py").symlink_to(secret)
    evaluator = InstantEvaluator()
    evaluation = evaluate_folder(gens, two_tasks, tmp_path / "out", evaluator=evaluator, progress=False)
    assert len(evaluator.policies) == 1
    assert evaluation.unmatched == [{"file": "L1/2_scaled_relu_again.py",
                                     "reason": "a link to a file outside the folder"}]


def test_a_speedup_on_a_degenerate_task_counts_in_no_metric():
    """KernelBench's L2/80 returns zeros: a zero-writing kernel is ``ok`` (flagged ``degenerate_task``) and, on a
    GPU, fast; it counted in fast_p, the geometric mean and a record's ``fast_1`` and ``best_speedup``, where the
    docs said reports leave such tasks out and every built-in reward gives it no speed bonus."""
    flag = [{"name": "degenerate_task", "reason": "the reference's outputs did not depend on its inputs"}]
    zero = {"task_id": "L2/80_Gemm_Max_Subtract_GELU", "status": "ok", "stage": "done", "speedup": 40.0,
            "timing_meaningful": True, "flags": flag}
    honest = {"task_id": "L1/9_Scale", "status": "ok", "stage": "done", "speedup": 1.2, "timing_meaningful": True,
              "flags": []}
    assert metrics.measured_speedup(zero) is None
    assert metrics.is_fast(zero, 0) and not metrics.is_fast(zero, 1.0)
    assert metrics.geomean_speedup([zero, honest]) == pytest.approx(1.2)
    summary = metrics.summarize([zero, honest], ps=(0, 1))
    assert summary["fast_p"] == pytest.approx({"fast_0": 1.0, "fast_1": 0.5})
    assert summary["degenerate"] == 1 and summary["measured"] == 1
    record = EpisodeRecord(task_id=zero["task_id"], sample=0, level=2, category="Fusion", backend="triton",
                           policy="p", seed=0, results=[zero], rewards=[0.3])
    row = record.to_row()
    assert row["fast_1"] is False and row["best_speedup"] is None and row["correct"] is True
