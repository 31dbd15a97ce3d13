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


DRIVER = """
import json, os, sys
import ray
from kernelgym.evaluators.ray_pool import RayEvalPool
from kernelgym.judge import sandbox
from kernelgym.judge.profiles import get_profile
from kernelgym.tasks import load_tasks
from kernelgym.testing.candidates import TEST_TASKS, indent, kernel_forward
here = os.path.dirname(os.path.abspath(__file__))
probe = kernel_forward(indent("return launch(x)"), imports="import os", extra=f'''
_seen = [p for p in ({here!r}, {os.path.join(here, "secret_api_key.txt")!r}, {sandbox.SOLUTIONS_DIR!r})
         if os.path.exists(p) and (not os.path.isdir(p) or os.listdir(p))]
_seen += [p for p in (".git", "pyproject.toml", "docs") if os.path.exists(os.path.join({sandbox.PACKAGE_ROOT!r}, p))]
if _seen:
    raise RuntimeError("saw " + ", ".join(_seen))''')
ray.init(num_cpus=2, num_gpus=1, include_dashboard=False, log_to_driver=False)
pool = RayEvalPool(num_gpus=1, concurrency_per_gpu=1, dedupe=False, gpus_per_actor=0,
                   judge_kwargs={"cache_dir": sys.argv[1], "static_checks": False, "prestart_workers": False})
profile = get_profile("quick").with_overrides(compile_timeout_s=120, cpu_correctness_timeout_s=120)
result = pool.submit(load_tasks(TEST_TASKS).get("L1/1_scaled_relu"), probe, profile=profile).result()
print("RESULT", json.dumps([result.status, result.message, result.log_tail[-600:]]), flush=True)
pool.close()
ray.shutdown()
"""


@pytest.mark.slow
def test_a_ray_drivers_script_folder_and_the_checkout_stay_out_of_the_sandbox(tmp_path):
    """Ray puts the driver's script folder and working folder on every Ray worker's import path, and the judge
    bound its runner's import path into the sandbox: a candidate evaluated in a :class:`RayEvalPool` actor read a
    file beside the driver's script, and the whole kernelgym checkout around the package (a red-team finding,
    2026-12-07; static checks off). The worker now sees only its own interpreter's import path."""
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    (project / "secret_api_key.txt").write_text("sk-secret")
    (project / "driver.py").write_text(DRIVER)
    proc = subprocess.run([sys.executable, str(project / "driver.py"), str(tmp_path / "cache")], capture_output=True,
                          text=True, timeout=600, cwd=elsewhere)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    assert lines, proc.stdout[-2000:] + proc.stderr[-3000:]
    status, message, log = json.loads(lines[-1][len("RESULT "):])
    assert status == "ok", (message, log)
