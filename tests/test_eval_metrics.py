"""Metrics (fast_p, geometric mean, pass@k, tables) on hand-built EvalResult dicts; kernelgym eval DIR / TASK FILE;
the command line's help, bench and one-line errors."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from conftest import DATA, GOOD
from kernelgym import cli
from kernelgym.scoring import metrics
from kernelgym.scoring.report import render_markdown

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "kernelgym" / "suite" / "solutions" / "triton" / "L1"


def res(task_id="L1/1_a", status="ok", speedup=None, meaningful=True, stage=None):
    stage = stage or ("done" if status in ("ok", "incorrect") else "compile")
    return {"task_id": task_id, "status": status, "stage": stage, "speedup": speedup,
            "timing_meaningful": meaningful}


# five results, hand-computed below
SET = [
    res("L1/1_a", "ok", 2.5),
    res("L1/1_a", "ok", 1.2),
    res("L2/2_b", "ok", 0.7),
    res("L2/2_b", "incorrect", None),
    res("L2/3_c", "ok", 3.0, meaningful=False),   # CPU-interpreter timing: unmeasured
]


# -- metrics ---------------------------------------------------------------------------------------------
def test_fast_p_matches_hand_computed_values():
    expected = {0: 4 / 5, 0.5: 3 / 5, 0.8: 2 / 5, 1: 2 / 5, 1.5: 1 / 5, 2: 1 / 5, 3: 0.0}
    for p, value in expected.items():
        assert metrics.fast_p(SET, p) == pytest.approx(value), p
    assert metrics.fast_p_curve(SET) == pytest.approx(
        {"fast_0": 0.8, "fast_0.5": 0.6, "fast_0.8": 0.4, "fast_1": 0.4, "fast_1.5": 0.2, "fast_2": 0.2})
    assert metrics.fast_p([], 1.0) == 0.0


def test_unmeasured_speedup_is_correct_but_never_fast():
    cpu = res(speedup=50.0, meaningful=False)
    assert metrics.is_fast(cpu, 0) and not metrics.is_fast(cpu, 0.5)
    assert metrics.measured_speedup(cpu) is None
    for bad in (float("nan"), float("inf"), 0.0, -1.0, None):
        assert metrics.measured_speedup(res(speedup=bad)) is None
    assert metrics.measured_speedup(res(status="incorrect", speedup=5.0)) is None


def test_geomean_over_measured_correct_results_only():
    assert metrics.geomean_speedup(SET) == pytest.approx((2.5 * 1.2 * 0.7) ** (1 / 3))
    assert metrics.geomean_speedup([res(speedup=2.0, meaningful=False)]) is None
    assert metrics.geomean_speedup([]) is None


def test_pass_at_k_is_the_unbiased_estimator():
    assert metrics.pass_at_k(5, 2, 1) == pytest.approx(0.4)
    assert metrics.pass_at_k(5, 2, 2) == pytest.approx(1 - 3 / 10)
    assert metrics.pass_at_k(5, 4, 2) == 1.0 and metrics.pass_at_k(5, 0, 3) == 0.0
    for n in range(1, 12):
        for c in range(n + 1):
            for k in range(1, n + 1):
                exact = 1 - math.comb(n - c, k) / math.comb(n, k)
                assert metrics.pass_at_k(n, c, k) == pytest.approx(exact, abs=1e-12)
    for bad in ((3, 4, 1), (3, 1, 4), (3, 1, 0)):
        with pytest.raises(ValueError):
            metrics.pass_at_k(*bad)
    # per task: 1_a 2/2 correct, 2_b 1/2, 3_c 1/1 -> pass@1 mean (1 + .5 + 1)/3; pass@2 over 1_a, 2_b only
    assert metrics.mean_pass_at_k(SET, 1) == pytest.approx(2.5 / 3)
    assert metrics.mean_pass_at_k(SET, 2) == pytest.approx(1.0)
    assert metrics.mean_pass_at_k(SET, 3) is None


def test_tables_per_level_and_category():
    cats = {"L1/1_a": "Activation", "L2/2_b": "Fusion"}
    report = metrics.tables(SET, cats, ps=(0, 1), ks=(1,))
    assert report["timing_meaningful"] == "some"
    assert report["overall"]["n"] == 5 and report["overall"]["tasks"] == 3
    assert report["overall"]["compiled"] == 5 and report["overall"]["correct"] == 4
    assert report["overall"]["measured"] == 3
    assert list(report["by_level"]) == ["L1", "L2"]
    assert report["by_level"]["L1"]["fast_p"] == {"fast_0": 1.0, "fast_1": 1.0}
    assert report["by_level"]["L2"]["fast_p"] == pytest.approx({"fast_0": 2 / 3, "fast_1": 0.0})
    assert set(report["by_category"]) == {"Activation", "Fusion", "unknown"}
    assert report["by_category"]["unknown"]["n"] == 1
    text = render_markdown(report)
    assert "| all | 5 | 3 | 100.0% | 80.0% | 80.0% | 40.0% |" in text and "## Per category" in text
    json.dumps(report)  # plain data


def test_compiled_is_derived_when_absent():
    assert metrics.is_compiled(res(status="compile_error", stage="compile")) is False
    assert metrics.is_compiled(res(status="runtime_error", stage="correctness")) is True
    assert metrics.is_compiled({"status": "crashed", "stage": "compile", "compiled": True}) is True


def test_all_cpu_results_follow_the_documented_convention():
    cpu = [res(f"L1/{i}_x", "ok", 0.01, meaningful=False) for i in range(3)] + [res("L1/9_y", "incorrect")]
    report = metrics.tables(cpu)
    assert report["timing_meaningful"] == "none"
    assert report["overall"]["fast_p"]["fast_0"] == 0.75
    assert all(v == 0.0 for k, v in report["overall"]["fast_p"].items() if k != "fast_0")
    assert report["overall"]["geomean_speedup"] is None


# -- kernelgym eval DIR ----------------------------------------------------------------------------------
def test_eval_folder_reports_fast_p_pass_at_k_and_plot(tmp_path, capsys):
    gens = tmp_path / "gens"
    (gens / "L1").mkdir(parents=True)
    shutil.copy(SOLUTIONS / "15_relu.py", gens / "L1" / "15_relu.py")                     # correct
    shutil.copy(SOLUTIONS / "17_sigmoid.py", gens / "L1" / "17_sigmoid.py")               # correct
    shutil.copy(SOLUTIONS / "17_sigmoid.py", gens / "level_1_problem_15_sample_1_kernel.py")  # wrong for relu
    (gens / "999_unknown_task.py").write_text("print('hi')\n")
    out = tmp_path / "report"
    args = ["eval", str(gens), "--out", str(out), "--device", "cpu", "--jobs", "2", "--cache-dir",
            str(tmp_path / "cache"), "--no-progress", "--task", "L1/15_relu", "--task", "L1/17_sigmoid"]
    assert cli.main(args) == 0
    printed = capsys.readouterr().out
    assert "3 files, 2 tasks: 3 compiled, 2 correct" in printed and "not evaluated: 999_unknown_task.py" in printed
    assert "missing: 1 sample(s) without a file" in printed

    report = json.loads((out / "report.json").read_text())
    overall = report["overall"]
    # relu: 2 samples, 1 correct; sigmoid: 1 sample, correct, and a second one missing (every task counts as many
    # samples as the one with the most: a missing sample is a failed one)
    assert overall["n"] == 4 and report["missing_samples"] == 1 and report["samples_per_task"] == 2
    assert overall["fast_p"] == pytest.approx({"fast_0": 2 / 4, "fast_0.5": 0.0, "fast_0.8": 0.0, "fast_1": 0.0,
                                               "fast_1.5": 0.0, "fast_2": 0.0})
    assert overall["geomean_speedup"] is None and report["timing_meaningful"] == "none"
    assert overall["pass_at_k"] == pytest.approx({"pass@1": (0.5 + 0.5) / 2, "pass@5": None, "pass@10": None})
    assert list(report["by_level"]) == ["L1"] and list(report["by_category"]) == ["Activation"]
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    statuses = {r["file"]: r["result"]["status"] for r in rows}
    assert statuses == {"L1/15_relu.py": "ok", "L1/17_sigmoid.py": "ok",
                        "level_1_problem_15_sample_1_kernel.py": "incorrect"}
    assert (out / "fast_p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "fast_1.5" in (out / "report.md").read_text()

    # --resume: unchanged files are not evaluated again
    (out / "fast_p.png").unlink()
    assert cli.main(args + ["--resume"]) == 0
    assert len((out / "results.jsonl").read_text().splitlines()) == 3
    assert json.loads((out / "report.json").read_text())["overall"] == overall
    assert (out / "fast_p.png").exists()


def test_eval_single_file_form_still_works(tmp_path, capsys):
    path = tmp_path / "cand.py"
    path.write_text(GOOD)
    code = cli.main(["eval", "L1/1_scaled_relu", str(path), "--tasks", str(DATA / "tasks"), "--device", "cpu",
                     "--cache-dir", str(tmp_path / "cache"), "--json"])
    assert code == 0
    assert json.loads(capsys.readouterr().out)["status"] == "ok"


@pytest.mark.parametrize("args, message", [
    (["eval", "L1/nope", str(SOLUTIONS / "15_relu.py")], "unknown task id 'L1/nope'"),
    (["eval", "L1/15_relu", "/no/such/file.py"], "cannot read candidate file"),
    (["eval", "/no/such/folder"], "cannot read folder"),
    (["eval", str(DATA)], "no candidate file"),
    (["tasks", "show", "L9/missing"], "unknown task id"),
    (["eval", str(SOLUTIONS.parent), "--ray", "127.0.0.1:1"], "cannot reach Ray cluster '127.0.0.1:1'"),
    (["collect", "--out", "/tmp/kg-never.jsonl", "--task", "L1/15_relu", "--ray", "127.0.0.1:1"],
     "cannot reach Ray cluster"),
])
def test_user_errors_are_one_line_and_exit_2(capsys, args, message):
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("kernelgym: error:") and message in err and err.count("\n") == 1


# -- the rest of the command line ------------------------------------------------------------------------
@pytest.mark.parametrize("args", [[], ["tasks"], ["tasks", "list"], ["tasks", "show"], ["tasks", "lint"], ["eval"],
                                  ["collect"], ["demo"]])
def test_every_subcommand_has_help(args, capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(args + ["--help"])
    assert exit_info.value.code == 0 and "usage:" in capsys.readouterr().out


def test_bench_runs_the_benchmark_script(tmp_path, capsys):
    assert cli.main(["bench", "--help"]) == 0
    assert "--repeats" in capsys.readouterr().out
    code = cli.main(["bench", "--repeats", "1", "--profile", "quick", "--pattern", "L1/15_relu", "--device", "cpu",
                     "--cache-dir", str(tmp_path), "--json", str(tmp_path / "bench.json")])
    assert code == 0
    assert "L1/15_relu" in capsys.readouterr().out
    (row,) = json.loads((tmp_path / "bench.json").read_text())["rows"]
    assert row["status"] == "ok"


def test_tasks_list_accepts_tasks_option(capsys):
    assert cli.main(["tasks", "list", "--tasks", str(DATA / "tasks"), "--ids"]) == 0
    assert capsys.readouterr().out.startswith("L1/1_scaled_relu")


def test_the_markdown_report_lists_the_files_the_judge_failed_on():
    """``report.json``'s ``judge_faults`` (no verdict on those files: counted as failed until ``--resume``) are named
    in ``report.md`` too, not only in the JSON (user QA, round 4)."""
    report = metrics.tables(SET, {}, ps=(0, 1), ks=(1,))
    assert "judge failed" not in render_markdown(report)
    report["judge_faults"] = ["L1/1_a.py"]
    text = render_markdown(report)
    assert "## Files the judge failed on" in text and "- `L1/1_a.py`" in text
