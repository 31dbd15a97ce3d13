"""``kernelgym eval`` and ``kernelgym collect`` on a Ray cluster (``--ray``): a real local cluster in a subprocess."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ray")

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "kernelgym" / "suite" / "solutions" / "triton" / "L1"

SCRIPT = """
import sys
from kernelgym import cli
gens, out, data, cache = sys.argv[1:5]
common = ["--device", "cpu", "--cache-dir", cache, "--no-progress", "--ray", "local"]
print("EVAL", cli.main(["eval", gens, "--out", out, "--task", "L1/15_relu"] + common), flush=True)
print("COLLECT", cli.main(["collect", "--out", data, "--task", "L1/15_relu", "--task", "L1/17_sigmoid",
                           "--samples", "2"] + common), flush=True)
"""


@pytest.mark.slow
def test_eval_and_collect_run_on_a_local_ray_cluster(tmp_path):
    gens = tmp_path / "gens"
    (gens / "L1").mkdir(parents=True)
    shutil.copy(SOLUTIONS / "15_relu.py", gens / "L1" / "15_relu.py")                         # correct
    shutil.copy(SOLUTIONS / "17_sigmoid.py", gens / "level_1_problem_15_sample_1_kernel.py")  # wrong for relu
    out, data = tmp_path / "report", tmp_path / "episodes.jsonl"
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(gens), str(out), str(data), str(tmp_path / "cache")],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert "EVAL 0" in proc.stdout and "COLLECT 0" in proc.stdout, proc.stdout[-2000:] + proc.stderr[-3000:]
    assert "2 files, 1 tasks: 2 compiled, 1 correct" in proc.stdout
    statuses = {r["file"]: r["result"]["status"] for r in map(json.loads, (out / "results.jsonl").open())}
    assert statuses == {"L1/15_relu.py": "ok", "level_1_problem_15_sample_1_kernel.py": "incorrect"}
    assert json.loads((out / "report.json").read_text())["overall"]["fast_p"]["fast_0"] == pytest.approx(0.5)
    episodes = [json.loads(line) for line in data.open()]
    assert sorted((e["task_id"], e["sample"]) for e in episodes) == [
        ("L1/15_relu", 0), ("L1/15_relu", 1), ("L1/17_sigmoid", 0), ("L1/17_sigmoid", 1)]
    assert all(e["statuses"] == ["ok"] for e in episodes)
    assert data.with_suffix(".parquet").exists()
