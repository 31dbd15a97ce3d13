"""benchmarks/throughput.py (issue #13): its batches are labelled honestly and its figures are computed right, and
the GPU lock keeps the holds that the GPU busy share is measured from; and one small real run of the script (Ray, the
interpreter) with two concurrency levels."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kernelgym.judge import guards
from kernelgym.judge.admission import SharedExclusiveLock

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("throughput_bench", ROOT / "benchmarks" / "throughput.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_batch_a_mixes_levels_and_thirds(bench):
    items = bench.batch_a(6)
    assert len(items) == 18
    assert {it.task.id[:3] for it in items} == {"L1/", "L2/", "L3/"}
    assert [it.variant for it in items[:3]] == ["solution", "scale", "undefined_name"]
    assert sum(it.expect_ok for it in items) == 6


def test_batch_b_samples_are_distinct_and_cover_every_family(bench):
    items = bench.batch_b(8, 16)
    assert len(items) == 128 and len({it.task.id for it in items}) == 8
    assert len({it.text for it in items}) == 128
    per_task = [it for it in items if it.task.id == items[0].task.id]
    assert per_task[0].variant == "solution"
    assert {it.family for it in per_task} == {"solution", "wrong", "slower", "tuned", "failing"}
    assert sum(it.expect_ok for it in per_task) == 8


def test_every_variant_applies_to_every_solution_and_passes_the_static_checks(bench):
    order = bench.grpo_order()
    items = bench.batch_b(100, 1 + len(order))  # every L1-L3 solution, each variant once
    for it in items:
        assert guards.check_source(it.text, "triton", "partial") == [], (it.task.id, it.variant)
    per_task = len(order) + 1
    assert [it.variant for it in items] == (["solution"] + order) * (len(items) // per_task)  # no fallback


def test_a_rewrite_that_finds_nothing_gives_way_to_the_next_variant(bench):
    task = bench.pick_solutions(1)[0][0]
    text = "import torch\nclass ModelNew(torch.nn.Module):\n    def forward(self, x):\n        return x\n"
    item = bench.make_item("B", 0, task, text, "warps_up")  # no num_warps=: warps_down neither, then comment
    assert (item.variant, item.family, item.expect_ok) == ("comment", "tuned", True)
    item = bench.make_item("B", 0, task, text, "undefined_name")  # no tl.program_id: the next failing variant
    assert (item.variant, item.family, item.expect_ok) == ("raise", "failing", False)


def test_busy_shares_count_overlaps_once_and_clip_to_the_window(bench):
    holds = [("shared", 0.0, 4.0), ("shared", 2.0, 5.0), ("exclusive", 6.0, 8.0), ("shared", 9.0, 12.0)]
    shares = bench.busy_shares([holds], 0.0, 10.0)
    assert shares == {"timing": 0.2, "correctness": 0.6, "idle": 0.2, "draining": 0.0}
    drained = holds + [("drain", 3.0, 6.0)]  # a timer asked at 3 s and got the GPU at 6 s
    assert bench.busy_shares([drained], 0.0, 10.0) == {"timing": 0.2, "correctness": 0.6, "idle": 0.2,
                                                       "draining": 0.3}
    two = bench.busy_shares([holds, []], 0.0, 10.0)  # a second, idle GPU halves the shares
    assert two["timing"] == 0.1 and two["idle"] == 0.6


def test_percentiles_and_fidelity_figures(bench):
    assert bench.percentiles([float(i) for i in range(1, 21)]) == {"p50": 10.5, "p95": 19.0, "max": 20.0}

    class Result:
        def __init__(self, status, speedup, ms):
            self.status, self.speedup, self.runtime_ms = status, speedup, ms

    item = bench.make_item("A", 0, *bench.pick_solutions(1)[0], "solution")
    other = bench.make_item("A", 1, *bench.pick_solutions(1)[0], "scale")
    batch = [bench.Run(item, Result("ok", 1.02, 2.0)), bench.Run(other, Result("ok", 1.0, 0.5))]
    alone = [bench.Run(item, Result("ok", 1.0, 2.0)), bench.Run(other, Result("incorrect", 1.2, 0.5))]
    fid = bench.fidelity(batch, alone)
    assert fid["median_abs_diff"] == pytest.approx(0.0933, abs=1e-3)
    assert fid["worst_abs_diff_ge_1ms"] == pytest.approx(0.02) and fid["n_ge_1ms"] == 1
    assert fid["verdicts_agree"] == 1


def test_an_interrupted_batch_keeps_its_figures_but_meets_no_target(bench):
    """A batch cut short (``timeout`` past the budget) reports the rate of what finished; no target is called met
    or missed on part of a batch."""
    out = {"pool": {"evals_per_gpu_hour": 9000.0, "turnaround_s": {"p95": 3.0}, "as_expected": 5, "evaluated": 5}}
    assert bench.targets("B", out)["rate"] == (9000.0, True)
    out["interrupted"] = "after 5.5 s"
    assert bench.targets("B", out)["rate"] == (9000.0, None)
    assert bench.targets("B", out)["p95_turnaround"] == (3.0, None)
    assert "interrupted after 5.5 s" in bench.summary_line("B", out)


def test_the_figures_count_where_each_eager_figure_came_from(bench):
    from kernelgym.judge.result import EvalResult

    item = bench.make_item("B", 0, *bench.pick_solutions(1)[0], "solution")
    hows = ["interleaved", "interleaved, lowered by a block timed alone", "batch", "batch", None]
    runs = [bench.Run(item, EvalResult(task_id="t", status="ok" if how else "incorrect",
                                       durations={"total": 1.0, "gpu_wait": 0.5, "memory_wait": 0.25,
                                                  **({"exact_reference": 3.0} if how == "batch" else {})},
                                       runtime_spread={"baseline": how} if how else {}), 0.0, 1.0) for how in hows]
    fig = bench.summarize(runs, wall_s=5.0, gpus=1, holds=[], t0=0.0, t1=5.0)
    assert fig["eager_figures"] == {"interleaved": 2, "batch": 2}
    assert any("eager figures by origin" in line for line in bench.figures_lines("pool B", fig))
    assert fig["summed_wait_s"] == {"gpu_wait": 2.5, "memory_wait": 1.25, "startup": 0}  # memory's part apart
    assert fig["float64_reference_s"] == {"exact_reference": {"sum": 6.0, "max": 3.0}}  # only where it ran


def test_the_lock_keeps_its_last_holds_in_monotonic_time_only_when_asked():
    plain = SharedExclusiveLock()
    with plain.shared():
        pass
    assert len(plain.holds) == 0
    lock = SharedExclusiveLock(keep_holds=2)
    before = time.monotonic()
    with lock.exclusive():
        pass
    with lock.shared():
        time.sleep(0.01)
    with lock.exclusive():
        pass
    assert [kind for kind, _, _ in lock.holds] == ["shared", "exclusive"]
    (_, start, end), _ = lock.holds
    assert before <= start and end - start >= 0.01


def test_scaling_figures_and_gpu_counts(bench):
    class Result:
        def __init__(self, status, speedup):
            self.status, self.speedup = status, speedup

    items = [bench.make_item("B", i, *bench.pick_solutions(1)[0], "solution") for i in range(3)]
    one = [bench.Run(items[0], Result("ok", 2.0)), bench.Run(items[1], Result("incorrect", None)),
           bench.Run(items[2], Result("ok", 1.0))]
    many = [bench.Run(items[0], Result("ok", 2.1)), bench.Run(items[1], Result("ok", 1.0)),
            bench.Run(items[2], None)]  # skipped by the budget: not compared
    sc = bench.scaling({"gpus": 1, "evals_per_gpu_hour": 1000.0}, {"gpus": 4, "evals_per_gpu_hour": 850.0}, one, many)
    assert sc["efficiency"] == 0.85 and sc["gpus"] == [1, 4]
    assert (sc["verdicts_identical"], sc["compared"]) == (1, 2)
    assert sc["median_speedup_diff"] == pytest.approx(0.05)
    assert "efficiency 0.85 (>= 0.9: FAIL)" in bench.scaling_words(sc)
    assert bench.gpu_counts("1,all") == [1, None]
    with pytest.raises(SystemExit):
        bench.gpu_counts("0,2")


def test_do_bench_agreement_loads_the_solutions_as_the_judge_reads_them(tmp_path):
    """The bundled solutions are answers with prose around a fence (what a policy sends): the do_bench script takes
    the code out of them as the judge does, or it stops at the first one (it did, on the H200)."""
    spec = importlib.util.spec_from_file_location(
        "do_bench_agreement", ROOT / "benchmarks" / "do_bench_agreement.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    policy = script.ReplayPolicy()
    ids = policy.task_ids()[:3]
    for task_id in ids:
        text = policy({"task_id": task_id})
        assert script.load_candidate(text, tmp_path).__name__ == "ModelNew"


def test_eager_efficiency_divides_by_the_measured_ceiling_of_the_tasks_precision():
    spec = importlib.util.spec_from_file_location("eager_efficiency", ROOT / "benchmarks" / "eager_efficiency.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    rows = [{"task_id": "a", "figures": {"implied_tbs": 2.0, "implied_tflops": 100.0}},
            {"task_id": "b", "figures": {"implied_tbs": 5.0, "implied_tflops": 900.0}},
            {"task_id": "c", "figures": {}}]
    ceilings = script.read_ceilings("{'bandwidth_tbs': 4.0, 'tf32': 400.0}")
    table = script.efficiencies(rows, ceilings, {"bf16": 1000.0}, {"a": "float32", "b": "bfloat16"})
    assert table[0] == {"task": "a", "precision": "tf32", "iou": 0.5, "mfu": 0.25}
    assert table[1]["iou"] == 1.25 and table[1]["mfu"] == 0.9  # bf16 not measured: the vendor's peak
    assert table[2]["iou"] is None and table[2]["mfu"] is None
    named = script.efficiencies(rows[:1], ceilings, {"int8": 2000.0}, {"a": "float32"}, {"a": "int8"})
    assert named[0]["precision"] == "int8" and named[0]["mfu"] == 0.05  # the precision the task names, as the judge


def test_drains_are_charged_to_the_step_the_timer_waited_for_last(bench):
    holds = [("shared:trial", 0.0, 1.0), ("shared:build", 0.5, 3.0), ("drain", 0.8, 3.0), ("exclusive", 3.0, 4.0),
             ("shared:trial", 3.5, 5.0), ("shared", 4.5, 5.2), ("drain", 4.8, 5.2), ("exclusive", 5.2, 6.0)]
    assert bench.drains_by_step([holds]) == {"build": 2.2, "shared": 0.4}


def test_the_lock_records_how_long_a_timer_waited_for_the_steps_in_flight():
    """A timer that asks while a step holds the GPU shared waits for it: kept as a ``drain`` record from the
    request to the grant, beside the holds, with the step's label; a timer that finds the GPU free drains nothing."""
    import threading

    lock = SharedExclusiveLock(keep_holds=10)
    inside = threading.Event()

    def step():
        with lock.shared(label="trial"):
            inside.set()
            time.sleep(0.3)

    thread = threading.Thread(target=step)
    thread.start()
    inside.wait(5)
    asked = time.monotonic()
    with lock.exclusive():
        pass
    thread.join(5)
    with lock.exclusive():
        pass
    kinds = [kind for kind, _, _ in lock.holds]
    assert kinds == ["shared:trial", "drain", "exclusive", "exclusive"]
    _, start, end = lock.holds[1]
    assert asked <= start + 1e-3 and end - start >= 0.2


def test_the_wall_bound_script_reports_the_bound_per_block_size(tmp_path):
    """benchmarks/wall_bound.py (device plan item 6) on the CPU: one evaluation per block size, each row with the
    worker's figure, the runner's bound and the block size asked for."""
    import json

    spec = importlib.util.spec_from_file_location("wall_bound_bench", ROOT / "benchmarks" / "wall_bound.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path / "rows.json"
    assert module.main(["--tasks", "L1/41_argmax", "--blocks", "2,3", "--device", "cpu", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())
    assert [r["block"] for r in rows] == [2, 3] and all(r["status"] == "ok" for r in rows)
    assert all(r["runner_bound_ms"] is not None and r["reported_median_ms"] > 0 for r in rows)
    assert module.profile_with_block(20, on_cpu=False).timing.block == 20


def test_pool_phases_cover_every_gpu_count_and_concurrency_level(bench):
    assert bench.pool_plan("all", "8") == [(None, 8, "pool")]
    assert bench.pool_plan("1,all", "8") == [(1, 8, "pool_1gpu"), (None, 8, "pool")]
    assert bench.pool_plan("all", "8,12") == [(None, 8, "pool_c8"), (None, 12, "pool")]
    assert [key for _, _, key in bench.pool_plan("1,2", "4,8")] == ["pool_1gpu_c4", "pool_1gpu_c8", "pool_2gpu_c4",
                                                                   "pool"]
    for bad in ("0", "8,8", "eight", "8,", ""):
        with pytest.raises(SystemExit, match="--concurrency"):
            bench.concurrency_levels(bad)
    plan = bench.pool_plan("1,2", "4,8")
    report = {"pool_2gpu_c4": {"evals_per_gpu_hour": 900.0, "turnaround_s": {"p95": 20.0}, "evaluated": 10},
              "pool": {"evals_per_gpu_hour": 1200.0, "turnaround_s": {"p95": 25.0}, "evaluated": 12},
              "pool_1gpu_c4": {"evals_per_gpu_hour": 1.0, "turnaround_s": {"p95": 1.0}, "evaluated": 1}}
    assert bench.concurrency_rows(report, plan) == [  # the last GPU count's levels only
        {"concurrency": 4, "evals_per_gpu_hour": 900.0, "p95_turnaround_s": 20.0, "evaluated": 10},
        {"concurrency": 8, "evals_per_gpu_hour": 1200.0, "p95_turnaround_s": 25.0, "evaluated": 12}]


@pytest.mark.timeout(300)
def test_the_script_runs_one_pool_phase_per_concurrency_level(tmp_path):
    """A real run (a local Ray cluster, the interpreter): batch B of one task, 3 samples, at 1 and then 2 evaluations
    at once, submitted through the pool's task feeder (``--order fed``); each phase evaluates every sample as labelled, and the report sets the levels side by side, with each
    phase's CPU profile of the actor. The JSON is
    written after each phase too, before the run ends (a run killed from outside keeps what finished)."""
    out = tmp_path / "tp.json"
    proc = subprocess.Popen([sys.executable, str(ROOT / "benchmarks" / "throughput.py"), "--batch", "B",
                             "--grpo-tasks", "1", "--samples", "3", "--concurrency", "1,2", "--plain", "0",
                             "--fidelity", "0", "--cache-dir", str(tmp_path / "cache"), "--cpu-profile", "0.01",
                             "--order", "fed", "--json", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path)
    first_seen = None
    try:
        deadline = time.monotonic() + 280
        while proc.poll() is None and time.monotonic() < deadline:
            if first_seen is None and out.exists():
                first_seen = json.loads(out.read_text())
            time.sleep(0.05)
        stdout, _ = proc.communicate(timeout=10)
    finally:
        proc.kill()
    assert proc.returncode == 0, stdout[-3000:]
    assert first_seen is not None and "pool_c1" in first_seen["B"] and "pool" not in first_seen["B"], first_seen
    assert not (tmp_path / "tp.json.part").exists()
    b = json.loads(out.read_text())["B"]
    for key, rows in (("pool_c1", "pool_c1_rows"), ("pool", "rows")):
        assert b[key]["evaluated"] == 3, b[key]
        assert [row["as_expected"] for row in b[rows]] == [True] * 3, b[rows]
        assert b[key]["cpu_s_per_evaluation"] > 0, b[key]  # the judges' CPU seconds over the batch, per evaluation
        profile, = b[key]["cpu_profile"]  # one actor's: its CPU charged to the judge's own functions
        assert any(k.startswith("kernelgym/judge/runner.py:") and v > 0 for k, v in profile["inclusive"]), profile
    assert [row["concurrency"] for row in b["concurrency"]] == [1, 2]
    assert all(row["evaluated"] == 3 and row["evals_per_gpu_hour"] > 0 for row in b["concurrency"])
    assert "concurrency B: 1 at once:" in stdout
    assert "order fed" in stdout
