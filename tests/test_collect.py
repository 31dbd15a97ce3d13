"""kernelgym collect: records, crash safety (kill -9 then --resume), damaged lines, policies, Parquet."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.json as pajson
import pyarrow.parquet as pq
import pytest

from conftest import DATA, GOOD, candidate, worker_processes, InstantEvaluator
from fake_openai import FakeChatServer
from kernelgym import cli
from kernelgym.data import DamagedLineWarning, EpisodeRecord, ReplayPolicy, collect, read_rows
from kernelgym.data.layout import assign, scan
from kernelgym.data.records import arrow_schema
from kernelgym.judge.result import EvalResult
from kernelgym.tasks import load_tasks

ROOT = Path(__file__).resolve().parents[1]
TASK = "L1/1_scaled_relu"
WRONG = candidate(expr="tl.maximum(x, 0.0)")


def fenced(code: str) -> str:
    return f"My answer:\n```python\n{code}\n```\n"


def replay_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "replay"
    (folder / "L1").mkdir(parents=True)
    (folder / "L1" / "1_scaled_relu.py").write_text(GOOD)
    return folder


def cli_env(tmp_path: Path) -> dict:
    return {**os.environ, "KERNELGYM_CACHE": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}


def collect_cmd(replay: Path, out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "kernelgym.cli", "collect", "--tasks", str(DATA / "tasks"), "--policy", "replay",
            "--replay-dir", str(replay), "--device", "cpu", "--out", str(out), "--no-progress", *extra]


def complete_lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


# -- crash safety ----------------------------------------------------------------------------------------
def test_kill_9_mid_collection_then_resume_keeps_every_episode_exactly_once(tmp_path):
    out = tmp_path / "episodes.jsonl"
    cmd = collect_cmd(replay_dir(tmp_path), out, "--samples", "3", "--turns", "1")
    proc = subprocess.Popen(cmd, env=cli_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    deadline = time.monotonic() + 120
    while complete_lines(out) < 1 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, "collect finished before it could be killed: " + proc.stdout.read().decode()
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    before = out.read_bytes()
    killed_rows = read_rows(out, warn=False)
    assert 1 <= len(killed_rows.rows) < 3 and not killed_rows.damaged

    resumed = subprocess.run(cmd + ["--resume"], env=cli_env(tmp_path), capture_output=True, text=True,
                             timeout=300)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    after = out.read_bytes()
    assert after.startswith(before)  # finished episodes were never rewritten
    contents = read_rows(out, warn=False)
    assert not contents.damaged
    keys = [(r["task_id"], r["sample"]) for r in contents.rows]
    assert sorted(keys) == [(TASK, 0), (TASK, 1), (TASK, 2)]
    assert all(r["correct"] and r["statuses"] == ["ok"] for r in contents.rows)
    assert pq.read_table(out.with_suffix(".parquet")).num_rows == 3
    deadline = time.monotonic() + 30  # the killed run's judge worker must not linger
    while worker_processes() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not worker_processes()


def test_damaged_last_line_is_detected_skipped_with_a_warning_and_rerun(tmp_path, test_tasks):
    out = tmp_path / "episodes.jsonl"
    policy = ReplayPolicy(replay_dir(tmp_path))
    collect(policy, test_tasks, out, samples=3, device="cpu", evaluator=InstantEvaluator(), progress=False)
    data = out.read_bytes()
    last_start = data.rstrip(b"\n").rfind(b"\n") + 1
    out.write_bytes(data[:last_start + 40])  # the last episode half-written, as after a crash mid-write
    with pytest.warns(DamagedLineWarning, match="damaged last line 3"):
        stats = collect(policy, test_tasks, out, samples=3, device="cpu", evaluator=InstantEvaluator(),
                        resume=True, progress=False)
    assert (stats.already_done, stats.finished) == (2, 1)
    contents = read_rows(out)
    assert not contents.damaged
    assert sorted(r["sample"] for r in contents.rows) == [0, 1, 2]
    assert (tmp_path / "episodes.jsonl.damaged").read_bytes() == data[last_start:last_start + 40] + b"\n"


def test_damaged_line_anywhere_is_skipped_by_readers_with_a_warning(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b'{"a": 1}\nnot json\n{"a": 2}\n{"a": 3')
    with pytest.warns(DamagedLineWarning) as caught:
        contents = read_rows(path)
    assert [r["a"] for r in contents.rows] == [1, 2]
    assert [n for n, _ in contents.damaged] == [2, 4]
    assert len(caught) == 2


def test_cli_resume_warns_about_a_damaged_last_line_in_one_line(tmp_path, capsys):
    out = tmp_path / "episodes.jsonl"
    row = EpisodeRecord(task_id=TASK, sample=0, level=1, category="Activation", backend="triton", policy="x",
                        seed=0, results=[{"status": "ok", "stage": "done"}], rewards=[0.3]).to_row()
    out.write_text(json.dumps(row) + '\n{"task_id": "L1/1_scaled_relu", "sam')
    code = cli.main(["collect", "--tasks", str(DATA / "tasks"), "--replay-dir", str(replay_dir(tmp_path)),
                     "--device", "cpu", "--out", str(out), "--resume", "--no-progress"])
    captured = capsys.readouterr()
    assert code == 0
    assert "kernelgym: warning:" in captured.err and "damaged last line 2" in captured.err
    assert "0 episodes written" in captured.out and "1 already in" in captured.out
    assert len(read_rows(out).rows) == 1


def test_existing_file_without_resume_is_refused(tmp_path, capsys):
    out = tmp_path / "episodes.jsonl"
    out.write_text("{}\n")
    code = cli.main(["collect", "--tasks", str(DATA / "tasks"), "--device", "cpu", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("kernelgym: error:") and "resume" in err
    assert out.read_text() == "{}\n"


# -- records ---------------------------------------------------------------------------------------------
def test_multi_turn_episode_record_via_a_callable_policy(tmp_path, capsys):
    policy_file = tmp_path / "my_policy.py"
    policy_file.write_text(f"WRONG = {WRONG!r}\nGOOD = {GOOD!r}\n\n"
                           "def policy(observation):\n"
                           "    return WRONG if observation['turn'] == 0 else '```python\\n' + GOOD + '\\n```'\n")
    out = tmp_path / "episodes.jsonl"
    code = cli.main(["collect", "--tasks", str(DATA / "tasks"), "--policy", f"{policy_file}:policy",
                     "--turns", "2", "--device", "cpu", "--cache-dir", str(tmp_path / "cache"), "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    for counter in ("compiled", "correct", "fast_1"):  # the progress bar's live counts
        assert counter in captured.err
    (row,) = read_rows(out).rows
    assert [m["role"] for m in row["messages"]] == ["user", "assistant", "user", "assistant"]
    assert row["messages"][0]["content"].startswith("You optimise PyTorch programs")
    assert row["messages"][2]["content"].startswith("Feedback on your previous attempt:\nStatus: incorrect")
    assert "Attempt 2 of 2" in row["messages"][2]["content"]
    assert row["actions"] == [WRONG, row["messages"][3]["content"]]
    assert row["statuses"] == ["incorrect", "ok"] and row["rewards"] == [0.0, pytest.approx(0.3)]
    assert row["terminated"] and not row["truncated"] and row["correct"] and not row["fast_1"]
    assert row["best_speedup"] is None  # CPU: speedups are not measured
    results = [json.loads(r) for r in row["results"]]
    assert [r["status"] for r in results] == ["incorrect", "ok"] and results[1]["timing_meaningful"] is False
    assert {"kernelgym", "torch", "triton", "gymnasium", "python"} <= set(json.loads(row["versions"]))
    assert json.loads(row["hardware"])["kind"] == "cpu"
    assert row["policy"].endswith(":policy")
    record = EpisodeRecord.from_row(row)
    assert record.to_row() | {"created_at": row["created_at"]} == row
    table = pq.read_table(out.with_suffix(".parquet"))
    assert table.schema.equals(arrow_schema()) and table.to_pylist()[0]["results"] == row["results"]
    assert pajson.read_json(out).num_rows == 1  # the JSON reader Hugging Face datasets uses


def test_openai_policy_collects_from_a_local_endpoint(tmp_path, capsys):
    with FakeChatServer(lambda body: fenced(GOOD)) as server:
        out = tmp_path / "episodes.jsonl"
        code = cli.main(["collect", "--tasks", str(DATA / "tasks"), "--policy", "openai", "--base-url",
                         server.base_url, "--model", "fake-model", "--temperature", "0.2", "--max-tokens", "512",
                         "--device", "cpu", "--cache-dir", str(tmp_path / "cache"), "--out", str(out),
                         "--no-progress"])
    assert code == 0, capsys.readouterr().err
    (request,) = server.requests
    assert request["model"] == "fake-model" and request["temperature"] == 0.2 and request["max_tokens"] == 512
    assert [m["role"] for m in request["messages"]] == ["user"] and request["seed"] == 0
    (row,) = read_rows(out).rows
    assert row["policy"].startswith("openai:fake-model@http://127.0.0.1:") and row["statuses"] == ["ok"]


def test_unreachable_endpoint_is_a_one_line_error(tmp_path, capsys):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code = cli.main(["collect", "--tasks", str(DATA / "tasks"), "--policy", "openai", "--base-url",
                     f"http://127.0.0.1:{port}/v1", "--model", "m", "--out", str(tmp_path / "x.jsonl")])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("kernelgym: error: cannot reach endpoint") and err.count("\n") == 1
    assert not (tmp_path / "x.jsonl").exists()


@pytest.mark.parametrize("args, message", [
    (["--task", "L1/nope"], "unknown task id"),
    (["--policy", "no_such_module_xyz:f"], "cannot import"),
    (["--replay-dir", "/no/such/folder"], "cannot read replay folder"),
])
def test_collect_user_errors_exit_2_with_one_line(tmp_path, capsys, args, message):
    code = cli.main(["collect", "--tasks", str(DATA / "tasks"), "--out", str(tmp_path / "x.jsonl"), *args])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("kernelgym: error:") and message in err and err.count("\n") == 1


def test_to_parquet_converts_an_existing_file(tmp_path, test_tasks, capsys):
    out = tmp_path / "episodes.jsonl"
    collect(ReplayPolicy(replay_dir(tmp_path)), test_tasks, out, samples=2, evaluator=InstantEvaluator(),
            progress=False, parquet=False)
    assert not out.with_suffix(".parquet").exists()
    assert cli.main(["collect", "--out", str(out), "--to-parquet"]) == 0
    assert pq.read_table(out.with_suffix(".parquet")).column("sample").to_pylist() == [0, 1]


# -- replay layouts --------------------------------------------------------------------------------------
def test_replay_and_scan_read_every_folder_layout(tmp_path):
    files = {
        "triton/L1/1_scaled_relu.py": "a", "cuda/L1/1_scaled_relu.py": "cuda",  # by backend
        "L2/3_fused.py": "b",                                                   # by task id
        "L1/7_many/s0.py": "c0", "L1/7_many/s1.py": "c1",                       # samples
        "X_9_extra.py": "d",                                                    # flat, named by task id
        "12_lonely.py": "e",                                                    # flat, by stem
        "kb/level_2_problem_5_sample_3_kernel.py": "f",                         # KernelBench naming
        "_private/L1/1_scaled_relu.py": "ignored",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    policy = ReplayPolicy(tmp_path)
    read = lambda task_id, sample=0: policy.path(task_id, sample).read_text()  # noqa: E731
    assert read("L1/1_scaled_relu") == "a" and read("L2/3_fused") == "b"
    assert [read("L1/7_many", s) for s in range(3)] == ["c0", "c1", "c0"]
    assert read("X/9_extra") == "d" and read("L3/12_lonely") == "e" and read("L2/5_softmax") == "f"
    assert not policy.has("L1/2_other") and not policy.has("L2/6_softmax")
    with pytest.raises(KeyError):
        policy({"task_id": "L1/2_other"})
    matched, unmatched = assign(scan(tmp_path, "triton"), ["L1/1_scaled_relu", "L2/5_softmax", "L1/12_lonely",
                                                          "L2/12_lonely"])
    assert [(t, f.path.name) for t, f in matched] == [("L2/5_softmax", "level_2_problem_5_sample_3_kernel.py"),
                                                     ("L1/1_scaled_relu", "1_scaled_relu.py")]
    reasons = {f.path.name: why for f, why in unmatched}
    assert reasons["12_lonely.py"].startswith("ambiguous") and reasons["3_fused.py"] == "matches no known task id"


def test_bundled_solutions_replay_as_before():
    policy = ReplayPolicy()
    assert "L1/15_relu" in policy.task_ids() and policy.has("L1/15_relu")
    assert "class ModelNew" in policy({"task_id": "L1/15_relu"})
    assert load_tasks().get("L1/15_relu")


def test_hugging_face_datasets_loads_jsonl_and_parquet(tmp_path, test_tasks):
    datasets = pytest.importorskip("datasets")
    out = tmp_path / "episodes.jsonl"
    collect(ReplayPolicy(replay_dir(tmp_path)), test_tasks, out, samples=2, max_turns=2,
            evaluator=InstantEvaluator(), progress=False)
    for kind, path in (("json", out), ("parquet", out.with_suffix(".parquet"))):
        ds = datasets.load_dataset(kind, data_files=str(path), split="train", cache_dir=str(tmp_path / "hf"))
        assert ds.num_rows == 2 and ds[0]["messages"][0]["role"] == "user"
        assert json.loads(ds[0]["results"][0])["status"] == "ok"


def test_a_failing_episode_is_not_recorded_and_resume_retries_it(tmp_path, test_tasks):
    out = tmp_path / "episodes.jsonl"

    def flaky(observation):
        if observation["sample"] == 1:
            raise ConnectionError("endpoint went away")
        return GOOD

    with pytest.warns(RuntimeWarning, match="L1/1_scaled_relu#1: ConnectionError"):
        stats = collect(flaky, test_tasks, out, samples=2, evaluator=InstantEvaluator(), progress=False)
    assert (stats.finished, stats.failed) == (1, 1)
    assert [r["sample"] for r in read_rows(out).rows] == [0]
    stats = collect(lambda observation: GOOD, test_tasks, out, samples=2, evaluator=InstantEvaluator(),
                    resume=True, progress=False)
    assert (stats.already_done, stats.finished) == (1, 1)
    assert sorted(r["sample"] for r in read_rows(out).rows) == [0, 1]
