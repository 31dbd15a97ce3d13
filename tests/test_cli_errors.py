"""Messages a user can act on: the real command line run as a subprocess (``python -m kernelgym.cli``) for each
mistake a new user makes (issue #15): an unavailable device, filters that match nothing, unknown task ids and
stages, an earlier eval report, a pipe closed early, missing help text, ``--version``. Plus the same checks where
environments and pools are built."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kernelgym._version import __version__
from kernelgym.testing.candidates import GOOD, TEST_TASKS

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 300


def kernelgym(*args: str, timeout: float = TIMEOUT, env: dict | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, **(env or {}), "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, "-m", "kernelgym.cli", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env=env)


def assert_user_error(proc: subprocess.CompletedProcess, *fragments: str) -> None:
    """Exit 2, nothing on stdout, one ``kernelgym: error:`` line on stderr containing every fragment."""
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("kernelgym: error:") and proc.stderr.count("\n") == 1, proc.stderr
    for fragment in fragments:
        assert fragment in proc.stderr, (fragment, proc.stderr)


# -- 1. a device that is not available -----------------------------------------------------------------------
def _no_gpu() -> bool:
    import torch

    return not torch.cuda.is_available()


@pytest.mark.skipif(not _no_gpu(), reason="needs a machine without a GPU")
@pytest.mark.parametrize("args", [
    ["demo", "--device", "cuda"],
    ["eval", "L1/1_scaled_relu", str(TEST_TASKS / "level1" / "1_scaled_relu.py"), "--tasks", str(TEST_TASKS),
     "--device", "cuda:0"],
    ["tasks", "lint", "--tasks", str(TEST_TASKS), "--device", "cuda"],
    ["bench", "--device", "cuda", "--pattern", "L1/15_relu"],
])
def test_unavailable_device_is_one_line_naming_what_is_available(args):
    assert_user_error(kernelgym(*args), "device 'cuda", "is not available", "available: cpu")


def test_unknown_device_name():
    assert_user_error(kernelgym("demo", "--device", "gpu"), "unknown device 'gpu'", "available: cpu")


def test_require_device():
    from kernelgym.hardware import DeviceUnavailable, require_device

    assert require_device(None) is None and require_device("cpu") == "cpu" and require_device("CPU:0") == "cpu"
    with pytest.raises(DeviceUnavailable, match="not supported.*available: cpu"):
        require_device("mps")
    if _no_gpu():
        with pytest.raises(DeviceUnavailable, match=r"^device 'cuda:0' is not available: .*available: cpu$"):
            require_device("cuda:0")


@pytest.mark.skipif(not _no_gpu(), reason="needs a machine without a GPU")
def test_env_and_local_pool_refuse_an_unavailable_device_at_construction():
    from kernelgym.envs.kernel_env import KernelEnv
    from kernelgym.hardware import DeviceUnavailable
    from kernelgym.evaluators.judge_pool import JudgePool

    with pytest.raises(DeviceUnavailable, match="available: cpu"):
        KernelEnv(tasks=str(TEST_TASKS), device="cuda", prestart_workers=False)
    with pytest.raises(DeviceUnavailable, match="available: cpu"):
        JudgePool(device="cuda:1")


def test_ray_pool_refuses_more_gpus_than_the_cluster_has():
    from kernelgym.hardware import DeviceUnavailable, require_gpus

    require_gpus(2, 2)
    with pytest.raises(DeviceUnavailable, match="4 GPU\\(s\\) asked for but the Ray cluster has 0"):
        require_gpus(4, 0)


@pytest.mark.slow
# -- 2. kernelgym eval DIR: failing files listed, an earlier report kept -------------------------------------
def test_eval_lists_failing_files_and_refuses_to_overwrite_a_report(tmp_path):
    gens = tmp_path / "gens" / "L1" / "1_scaled_relu"
    gens.mkdir(parents=True)
    (gens / "0.py").write_text(GOOD)
    (gens / "1.py").write_text("```python\nclass ModelNew(:\n    pass\n```\n")  # a syntax error: no worker needed
    out = tmp_path / "report"
    args = ["eval", str(tmp_path / "gens"), "--tasks", str(TEST_TASKS), "--out", str(out), "--device", "cpu",
            "--jobs", "1", "--cache-dir", str(tmp_path / "cache"), "--no-progress"]
    first = kernelgym(*args)
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    assert "2 files, 1 tasks: 1 compiled, 1 correct" in first.stdout
    assert "failed: 1 file(s)" in lines
    assert "pass@1 0.500" in lines  # one task, two samples, one correct (pass@k was in the report files only)
    (failed,) = [line for line in lines if "1_scaled_relu/1.py" in line]
    assert "compile_error" in failed and len(failed.split("compile_error", 1)[1].strip()) > 0  # its message
    assert not any("1_scaled_relu/0.py" in line for line in lines)
    report = (out / "report.json").read_text()

    again = kernelgym(*args)
    assert_user_error(again, str(out), "already holds a report", "--force")
    assert (out / "report.json").read_text() == report
    assert kernelgym(*args, "--resume").returncode == 0        # continuing it is allowed
    forced = kernelgym(*args, "--overwrite")
    assert forced.returncode == 0 and "failed: 1 file(s)" in forced.stdout


def test_eval_without_a_sandbox_is_one_line_saying_why_and_how_to_opt_out(tmp_path):
    """No bwrap here: ``kernelgym eval`` says so at once and exits 2 (it once waited for ever: the pool thread's
    judge failed to start and no evaluation's future was settled)."""
    gens = tmp_path / "gens" / "L1" / "1_scaled_relu"
    gens.mkdir(parents=True)
    for i in range(3):  # more files than threads: every queued evaluation must be settled
        (gens / f"{i}.py").write_text(GOOD)
    proc = kernelgym("eval", str(tmp_path / "gens"), "--tasks", str(TEST_TASKS), "--out", str(tmp_path / "report"),
                     "--device", "cpu", "--jobs", "2", "--cache-dir", str(tmp_path / "cache"), "--no-progress",
                     timeout=120, env={"KERNELGYM_BWRAP": str(tmp_path / "no-bwrap"), "KERNELGYM_SANDBOX": "bwrap"})
    assert_user_error(proc, "sandbox cannot be set up", "no bwrap executable", "KERNELGYM_SANDBOX=unsafe")


# -- 3. help text and --version --------------------------------------------------------------------------------
def test_version():
    proc = kernelgym("--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"kernelgym {__version__}"


def _actions(parser: argparse.ArgumentParser, path: str):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _actions(sub, f"{path} {name}")
        else:
            yield path, action


def test_every_option_of_every_subcommand_has_help():
    from kernelgym.cli import build_parser

    missing = [f"{path} {'/'.join(a.option_strings) or a.dest}" for path, a in _actions(build_parser(), "kernelgym")
               if not a.help or a.help == argparse.SUPPRESS]
    assert not missing


def test_bench_help_describes_every_option():
    proc = kernelgym("bench", "--help")
    assert proc.returncode == 0
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_solutions", ROOT / "benchmarks" / "bench_solutions.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    parser = module.build_parser()
    assert all(a.help for a in parser._actions)
    for action in parser._actions:
        assert action.option_strings[-1] in proc.stdout


# -- 4. filters that match nothing ----------------------------------------------------------------------------
@pytest.mark.parametrize("args, fragments", [
    (["tasks", "list", "--level", "7"], ["no task at --level 7", "levels present: 1, 2, 3"]),
    (["tasks", "list", "--category", "Nope"], ["'Nope'", "known: ", "Activation"]),
    (["tasks", "list", "--pattern", "zzz"], ["--pattern 'zzz'", "ids look like L1/"]),
    (["tasks", "lint", "--tasks", str(TEST_TASKS), "--category", "Pooling"],
     ["no task in --category Pooling", "categories present: Activation"]),
    (["tasks", "show", "L9/nope"], ["unknown task id 'L9/nope'", "tasks, L1/"]),
    (["collect", "--out", "/tmp/kg-never-written.jsonl", "--level", "7"], ["--level 7", "levels present"]),
    (["collect", "--out", "/tmp/kg-never-written.jsonl", "--task", "L9/nope"], ["unknown task id 'L9/nope'"]),
    (["bench", "--pattern", "zzz"], ["no bundled triton solution matches --pattern 'zzz'"]),
])
def test_a_filter_that_matches_nothing_is_an_error(args, fragments):
    assert_user_error(kernelgym(*args), *fragments)
    assert not Path("/tmp/kg-never-written.jsonl").exists()


# -- 5. a pipe closed early ------------------------------------------------------------------------------------
@pytest.mark.parametrize("args", [["tasks", "list", "--ids"], ["tasks", "list"]])
def test_a_closed_pipe_ends_quietly(args):
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen([sys.executable, "-m", "kernelgym.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT, env=env)
    proc.stdout.close()  # the reader is gone before anything is written (what `| head -1` does, always)
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=TIMEOUT) in (0, 141) and err == ""

    shell = subprocess.run(f"{sys.executable} -m kernelgym.cli {' '.join(args)} | head -1; "
                           "echo status=${PIPESTATUS[0]}", shell=True, executable="/bin/bash", capture_output=True,
                           text=True, cwd=ROOT, env=env, timeout=TIMEOUT)
    out = shell.stdout.splitlines()
    assert len(out) == 2 and out[1] in ("status=0", "status=141") and shell.stderr == ""


# -- 6. stage limits --------------------------------------------------------------------------------------------
def test_limit_with_an_unknown_stage_is_an_error():
    cand = str(TEST_TASKS / "level1" / "1_scaled_relu.py")
    assert_user_error(kernelgym("eval", "L1/1_scaled_relu", cand, "--tasks", str(TEST_TASKS), "--limit", "warmup=3"),
                      "'warmup'", "stages with a limit: startup, compile, correctness, timing")
    assert_user_error(kernelgym("eval", "L1/1_scaled_relu", cand, "--tasks", str(TEST_TASKS), "--limit", "compile"),
                      "expected STAGE=SECONDS")
    assert_user_error(kernelgym("eval", "L1/1_scaled_relu", cand, "--tasks", str(TEST_TASKS), "--limit",
                                "recheck=3"), "shares the limit of 'correctness'")


def test_limit_reaches_the_judge(tmp_path):
    path = tmp_path / "cand.py"
    path.write_text(GOOD)
    proc = kernelgym("eval", "L1/1_scaled_relu", str(path), "--tasks", str(TEST_TASKS), "--device", "cpu",
                     "--cache-dir", str(tmp_path / "cache"), "--limit", "startup=0.01", "--json")
    result = json.loads(proc.stdout)
    assert proc.returncode == 1 and result["status"] == "timeout" and "startup" in result["message"]


def test_env_limits_keyword():
    from kernelgym.envs.kernel_env import KernelEnv
    from kernelgym.judge.profiles import with_limits

    prof = with_limits("quick", {"compile": 30, "correctness": 7.5})
    assert (prof.name, prof.compile_timeout_s, prof.cuda_compile_timeout_s) == ("quick", 30.0, 30.0)
    assert prof.correctness_timeout_s == prof.cpu_correctness_timeout_s == 7.5
    assert with_limits("full", None) == "full"
    env = KernelEnv(tasks=str(TEST_TASKS), device="cpu", prestart_workers=False, limits={"timing": 5})
    try:
        assert env.profile.timing_timeout_s == 5.0 and env.profile.name == "quick"
    finally:
        env.close()
    with pytest.raises(ValueError, match="'nope': it is not a stage; stages with a limit: startup, compile"):
        KernelEnv(tasks=str(TEST_TASKS), device="cpu", prestart_workers=False, limits={"nope": 1})
    with pytest.raises(ValueError, match="positive number of seconds"):
        KernelEnv(tasks=str(TEST_TASKS), device="cpu", prestart_workers=False, limits={"compile": 0})
