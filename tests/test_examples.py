"""Every example runs on CPU with small settings (smoke tests, as subprocesses)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fake_openai import FakeChatServer

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
RELU_SOLUTION = (ROOT / "kernelgym" / "suite" / "solutions" / "triton" / "L1" / "15_relu.py").read_text()


def run_example(name: str, *args: str, tmp_path: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "KERNELGYM_CACHE": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, str(EXAMPLES / name), *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, f"{name} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc


def test_replay_episode(tmp_path):
    out = run_example("replay_episode.py", "--task", "L1/15_relu", "--turns", "1", "--device", "cpu",
                      tmp_path=tmp_path).stdout
    assert "task L1/15_relu" in out and "turn 1: ok" in out


def test_openai_multiturn_against_a_local_server(tmp_path):
    answers = iter(["I am not sure how to do this.", f"```python\n{RELU_SOLUTION}\n```"])
    with FakeChatServer(lambda body: next(answers)) as server:
        out = run_example("openai_multiturn.py", "--base-url", server.base_url, "--model", "fake-model",
                          "--task", "L1/15_relu", "--turns", "3", "--device", "cpu", tmp_path=tmp_path).stdout
    assert "turn 1: compile_error" in out and "turn 2: ok" in out and "4 messages" in out
    first, second = server.requests
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "user"]
    assert second["messages"][2]["content"].startswith("Feedback on your previous attempt:")


def test_collect_dataset(tmp_path):
    out_file = tmp_path / "episodes.jsonl"
    out = run_example("collect_dataset.py", "--out", str(out_file), "--pattern", "L1/15_relu", "--samples", "2",
                      "--device", "cpu", tmp_path=tmp_path).stdout
    assert "2 episodes written (2 compiled, 2 correct" in out and "2 rows" in out
    rows = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert [(r["task_id"], r["sample"]) for r in rows] == [("L1/15_relu", 0), ("L1/15_relu", 1)]


def test_trl_reward(tmp_path):
    out = run_example("trl_reward.py", "--task", "L1/15_relu", "--device", "cpu", tmp_path=tmp_path).stdout
    lines = [line for line in out.splitlines() if line.startswith("reward")]
    assert len(lines) == 3 and lines[0].startswith("reward 0.300  ok") and "compile_error" in lines[1]


@pytest.mark.slow
def test_ray_rollouts(tmp_path):
    out = run_example("ray_rollouts.py", "--envs", "2", "--steps", "2", "--fake-gpus", "2", tmp_path=tmp_path).stdout
    lines = [line for line in out.splitlines() if line.startswith("step ")]
    assert len(lines) == 2 and "'ok'" in lines[0] and "'reset'" in lines[1]


def test_rllib_text_policy(tmp_path):
    import pytest

    pytest.importorskip("ray.rllib")
    out = run_example("rllib_text_policy.py", "--episodes", "2", "--device", "cpu", tmp_path=tmp_path).stdout
    lines = [line for line in out.splitlines() if line.startswith("episode ")]
    assert len(lines) == 2 and all("last verdict ok" in line for line in lines)
