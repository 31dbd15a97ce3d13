"""benchmarks/bound_report.py on the results measured on the H200 at 0a3b8d7 (docs/results): the rows the
runner's wall-clock bound raised, and what each bound was made of."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"


def _report_module():
    spec = importlib.util.spec_from_file_location("bound_report", ROOT / "benchmarks" / "bound_report.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_report_counts_the_raised_rows_of_both_timing_methods(tmp_path, capsys):
    synchronized = RESULTS / "datasets_h200_2026-12-05e_0a3b8d7.tgz"
    activity = RESULTS / "datasets_activity_h200_2026-12-05e_0a3b8d7.tgz"
    out = tmp_path / "bound.json"
    assert _report_module().main([str(synchronized), str(activity), "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report[str(synchronized)]["summary"]["timed"] == 69 == report[str(activity)]["summary"]["timed"]
    assert report[str(synchronized)]["summary"]["raised"] == 5
    assert report[str(activity)]["summary"]["raised"] == 27
    rows = {r["task"]: r for r in report[str(activity)]["rows"]}
    l14 = rows["L1/14_tensor_matrix_bf16"]  # kernel 1.020 ms, kept 1.447: (2.829 - 0.920 - 0.5 / 5) / 1.25
    assert l14["raised"] == pytest.approx(1.419, abs=1e-3) and l14["runtime_ms"] == pytest.approx(1.447, abs=1e-3)
    assert l14["excess_ms"] == pytest.approx(2.829 - 0.920 - 1.020, abs=1e-2)
    assert "raised 27" in capsys.readouterr().out


def test_rows_without_a_gpu_timing_are_left_out(tmp_path):
    module = _report_module()
    rows = tmp_path / "results.jsonl"
    rows.write_text(json.dumps({"task_id": "t", "result": {"task_id": "t", "status": "ok", "timing_meaningful": False,
                                                            "runtime_spread": {"reported_median_ms": 1.0}}}) + "\n")
    assert [module.row_figures(r) for r in module.read_rows(rows)] == [None]
    assert module.summary([])["timed"] == 0


def test_a_row_rejected_by_the_bound_is_listed_with_its_factor(capsys):
    """On the H100 at 9b9e2c1 (first run) L1/41 was rejected: synchronized 1.154 ms against a bound of 18.39 ms."""
    path = RESULTS / "datasets_h100_2026-12-06_9b9e2c1.tgz"
    module = _report_module()
    rejected = [f for f in (module.rejected_figures(r) for r in module.read_rows(path)) if f is not None]
    assert [f["task"] for f in rejected] == ["L1/41_argmax"]
    assert rejected[0]["factor"] == pytest.approx(18.387 / 1.1536, rel=1e-3)
    assert rejected[0]["probed_fastest_ms"] is None  # that run did not record which blocks had a probe
    assert module.main([str(path)]) == 0
    out = capsys.readouterr().out
    assert "REJECTED L1/41_argmax" in out and "rejected by the bound 1" in out


def test_the_blocks_with_a_probe_and_those_without_are_told_apart():
    module = _report_module()
    spread = {"runner_block_walls_ms": [26.0, 4.2, 28.6, 4.5], "runner_block_probed": [True, False, True, False]}
    assert module.probe_split(spread) == (26.0, 4.2)
    assert module.probe_split({"runner_block_walls_ms": [3.0]}) == (None, None)  # not recorded
    assert module.probe_split({"runner_block_walls_ms": [3.0], "runner_block_probed": [True]}) == (3.0, None)


def test_the_report_says_what_the_witnesses_measured(capsys, tmp_path):
    """Rows with a witness (kernelgym.judge.witness): how many were measured, gave the bound or failed, and the
    witness's overhead over the null calls'."""
    module = _report_module()

    def row(task, witness_ms, source, failure=None):
        return {"task_id": task, "status": "ok", "timing_meaningful": True, "runtime_ms": 1.0,
                "runtime_spread": {"reported_median_ms": 1.0, "runner_fastest_wall_ms": 3.0,
                                   "runner_overhead_ms": 1.5, "runner_overhead_from": source,
                                   "null_overhead_ms": 1.0, "witness_overhead_ms": witness_ms,
                                   "witness_failure": failure,
                                   "unwitnessed_bound_ms": 1.6 if source == "witness" else None}}

    results = tmp_path / "results.jsonl"
    results.write_text("\n".join(json.dumps(r) for r in (row("a", 1.5, "witness"), row("b", 0.8, "null_calls"),
                                                          row("c", None, "null_calls", "crashed: gone"),
                                                          row("d", None, "null_calls"))))
    assert module.main([str(results)]) == 0
    printed = capsys.readouterr().out
    assert "witnesses: 2 measured, 1 gave the bound, 1 failed; witness overhead over the null calls' [0.8, 1.5]; " \
           "without them the null calls' bound would have raised 1 of these (by [1.6])" in printed
    assert "witness failed for c: crashed: gone" in printed


def test_the_late_null_rounds_and_the_raises_that_were_the_bounds_are_reported(capsys):
    """On the H100 at 5d8971d (docs/BENCHMARKS.md, thirty-ninth session): the late round ran in 6 of 69 rows, at 1.03
    to 1.76 times the early overhead, and the one raised row (L1/97, 1.08) was raised by the compared calls' floor,
    not by the bound; at 272e5ab, before the late blocks, the bound raised 8."""
    module = _report_module()
    late = module.summary([f for f in map(module.row_figures, module.read_rows(
        RESULTS / "datasets_h100_2026-12-07r_5d8971d.tgz")) if f is not None])
    assert late["timed"] == 69 and late["raised"] == 1 and late["raised_by_bound"] == 0
    assert late["late_rounds"] == 6 and late["late_over_early"][0] == pytest.approx(1.03, abs=0.01)
    assert late["late_over_early"][-1] == pytest.approx(1.76, abs=0.01)
    assert late["seed_wait_ms"] is None  # measured before 707421e
    before = module.summary([f for f in map(module.row_figures, module.read_rows(
        RESULTS / "datasets_h100_2026-12-07q_272e5ab.tgz")) if f is not None])
    assert before["raised"] == before["raised_by_bound"] == 8 and before["late_rounds"] == 0
    assert module.main([str(RESULTS / "datasets_h100_2026-12-07r_5d8971d.tgz")]) == 0
    assert "raised by the bound 0; late null rounds 6" in capsys.readouterr().out
