"""benchmarks/kernelbench_agreement.py (issue #14's measurement): a KernelBench run that failed for a reason that
says nothing about the kernel (out of GPU memory beside the other runs, the script's own time limit) is never
counted as a verdict. It is rerun alone, and ``--resume`` reruns it. Measured on the H200: with four of KernelBench's
subprocesses at once, 11 of 60 rows were such failures.

KernelBench's evaluator is replaced by a stand-in package written here (``src/kernelbench/eval.py``). Like the real
one, it runs in a fresh interpreter per kernel. It "runs out of memory" the first time it sees a kernel and sleeps
when the kernel asks it to."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

FAKE_EVAL = '''
import hashlib, os, time, types
from pathlib import Path

def eval_kernel_against_ref(ref, cand, **kwargs):
    """Out of GPU memory the first time it sees a kernel (as when the other runs beside it held the memory);
    then asleep for as long as the kernel's "# sleep N" says, and correct when the kernel says so."""
    seen = Path(os.environ["FAKE_KB_RUNS"]) / hashlib.sha256(cand.encode()).hexdigest()
    if not seen.exists():
        seen.touch()
        raise RuntimeError("CUDA out of memory. Tried to allocate 6.00 GiB. " + "x" * 800
                           + " Of the allocated memory 6.00 GiB is allocated by PyTorch")
    for line in cand.splitlines():
        if line.startswith("# sleep "):
            time.sleep(float(line.split()[2]))
    return types.SimpleNamespace(compiled=True, correctness="# correct" in cand, runtime=1.0, ref_runtime=2.0,
                                 metadata={})
'''

PROBLEM = textwrap.dedent('''
    import torch
    import torch.nn as nn

    class Model(nn.Module):
        def forward(self, x):
            return x * {scale}

    def get_inputs():
        return [torch.randn(16, 16)]

    def get_init_inputs():
        return []
''')


def make_checkout(root: Path) -> Path:
    """A KernelBench checkout in miniature: the stand-in evaluator, two level-1 problems, three kernels."""
    (root / "src" / "kernelbench").mkdir(parents=True)
    (root / "src" / "kernelbench" / "__init__.py").write_text("")
    (root / "src" / "kernelbench" / "eval.py").write_text(FAKE_EVAL)
    (root / "KernelBench" / "level1").mkdir(parents=True)
    for n in (1, 2, 3):
        (root / "KernelBench" / "level1" / f"{n}_Scale{n}.py").write_text(PROBLEM.format(scale=n + 1))
    kernels = root / "triton_runs"
    kernels.mkdir()
    (kernels / "level1_problem1_triton.py").write_text("# correct\n")
    (kernels / "level1_problem2_triton.py").write_text("# wrong\n")
    (kernels / "level1_problem3_triton.py").write_text("# correct\n# sleep 60\n")
    (root / "runs").mkdir()
    return root


def run_script(checkout: Path, out: Path, *extra: str) -> dict:
    env = {**os.environ, "FAKE_KB_RUNS": str(checkout / "runs")}
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "kernelbench_agreement.py"), "--kernelbench", str(checkout),
         "--kernels", str(checkout / "triton_runs"), "--levels", "1", "--skip-kernelgym", "--json", str(out),
         *extra], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return {"stdout": done.stdout, **json.loads(out.read_text())}


def verdicts(report: dict) -> dict:
    return {row["kernel"]: row.get("kernelbench") for row in report["rows"]}


def test_runs_out_of_memory_beside_others_are_rerun_alone_and_timeouts_are_not_verdicts(tmp_path):
    checkout = make_checkout(tmp_path / "kb")
    report = run_script(checkout, tmp_path / "a.json", "--kb-jobs", "3", "--timeout-s", "20",
                        "--alone-timeout-s", "15")
    kb = verdicts(report)
    # three at once, each "ran out of memory"; alone, the first two were judged as the kernels say
    assert kb["level1_problem1_triton.py"]["correct"] is True and kb["level1_problem1_triton.py"]["at_once"] == 1
    assert kb["level1_problem2_triton.py"]["correct"] is False and kb["level1_problem2_triton.py"]["compiled"]
    assert kb["level1_problem2_triton.py"]["at_once"] == 1
    # the third outlived its limit alone too: kept, marked, and named as not judged
    slow = kb["level1_problem3_triton.py"]
    assert slow["error"].startswith("timeout after 15") and slow["at_once"] == 1
    assert "not judged by KernelBench" in report["stdout"] and "level1_problem3_triton.py" in report["stdout"]
    assert "KernelBench: 2 of 3 kernels judged" in report["stdout"]


def test_resume_keeps_verdicts_and_reruns_what_was_not_judged(tmp_path):
    checkout = make_checkout(tmp_path / "kb")
    earlier = {"rows": [
        {"kernel": "level1_problem1_triton.py", "task_id": "x", "kernelgym": {},
         "kernelbench": {"compiled": True, "correct": False, "wall_s": 1.0, "note": "kept"}},
        {"kernel": "level1_problem2_triton.py", "task_id": "x", "kernelgym": {},
         "kernelbench": {"compiled": False, "correct": False, "error": "[...] 8.00 GiB is allocated by PyTorch"}},
        {"kernel": "level1_problem3_triton.py", "task_id": "x", "kernelgym": {},
         "kernelbench": {"compiled": False, "correct": False, "error": "timeout after 120 s"}}]}
    (tmp_path / "earlier.json").write_text(json.dumps(earlier))
    (checkout / "triton_runs" / "level1_problem3_triton.py").write_text("# correct\n")
    report = run_script(checkout, tmp_path / "b.json", "--resume", str(tmp_path / "earlier.json"), "--kb-jobs", "2")
    kb = verdicts(report)
    assert kb["level1_problem1_triton.py"]["note"] == "kept"  # a verdict is never rerun
    assert kb["level1_problem2_triton.py"]["compiled"] and not kb["level1_problem2_triton.py"]["correct"]
    assert kb["level1_problem3_triton.py"]["correct"] is True


def test_redo_kernelgym_judges_again_keeps_kernelbench_and_starts_with_what_both_judge(tmp_path):
    checkout = make_checkout(tmp_path / "kb")
    stale = {"off": {"compiled": True, "correct": True, "status": "stale"}}
    earlier = {"rows": [
        {"kernel": "level1_problem1_triton.py", "task_id": "x", "kernelgym": stale},
        {"kernel": "level1_problem2_triton.py", "task_id": "x", "kernelgym": stale,
         "kernelbench": {"compiled": True, "correct": False, "wall_s": 1.0, "note": "kept"}}]}
    (tmp_path / "earlier.json").write_text(json.dumps(earlier))
    out = tmp_path / "c.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "kernelbench_agreement.py"), "--kernelbench", str(checkout),
         "--kernels", str(checkout / "triton_runs"), "--levels", "1", "--limit", "2", "--skip-kernelbench",
         "--policies", "off", "--jobs", "1", "--device", "cpu", "--resume", str(tmp_path / "earlier.json"),
         "--redo-kernelgym", "--json", str(out)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = {row["kernel"]: row for row in json.loads(out.read_text())["rows"]}
    assert all(row["kernelgym"]["off"]["status"] != "stale" for row in rows.values())  # judged again
    assert rows["level1_problem2_triton.py"]["kernelbench"]["note"] == "kept"
    order = [line.split()[3] for line in done.stdout.splitlines() if line.startswith("[off ")]
    assert order == ["level1_problem2_triton.py", "level1_problem1_triton.py"]  # the one both judge, first


def test_only_runs_the_kernels_named_and_a_wrong_name_is_a_clear_error(tmp_path):
    checkout = make_checkout(tmp_path / "kb")
    report = run_script(checkout, tmp_path / "d.json", "--only", "level1_problem2_triton.py", "--kb-jobs", "1")
    assert list(verdicts(report)) == ["level1_problem2_triton.py"]
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "kernelbench_agreement.py"), "--kernelbench", str(checkout),
         "--kernels", str(checkout / "triton_runs"), "--only", "level1_problem9_triton.py", "--skip-kernelgym"],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "no kernel file named level1_problem9_triton.py" in done.stderr


def test_the_summary_counts_kernels_and_gives_agreement_without_the_torch_fallbacks_rejected():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from kernelbench_agreement import summarize

    def row(kb_correct, status, flags=(), kb_extra=None):
        ours = {"compiled": status != "compile_error", "correct": status == "ok", "status": status,
                "flags": list(flags)}
        return {"kernelgym": {"partial": ours},
                "kernelbench": {"compiled": True, "correct": kb_correct, **(kb_extra or {})}}

    rows = [row(True, "ok"), row(True, "ok"), row(False, "incorrect"),
            row(True, "rejected", ["no_custom_kernel"]),  # a torch fallback KernelBench accepts
            row(True, "incorrect"),  # a real disagreement
            row(True, "ok", kb_extra={"error": "timeout after 120 s"}),  # not judged by KernelBench: left out
            {"kernelgym": {"partial": {"compiled": True, "correct": True, "flags": []}}}]  # KernelBench not run
    summary = summarize(rows, "partial")
    assert summary["kernels"] == 5
    assert summary["correct_agreement"] == 3 / 5
    assert summary["torch_fallbacks_rejected"] == 1
    assert summary["correct_agreement_without_torch_fallbacks"] == 3 / 4


def test_redo_drops_only_the_policies_judged_again_and_later_files_win():
    """A run that judges ``off`` again keeps the ``partial`` verdicts it resumed from (it once dropped them all), and
    resuming from several runs merges them, a later run's verdicts replacing an earlier one's."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from kernelbench_agreement import keep_earlier

    kb_verdict = {"compiled": True, "correct": True, "wall_s": 1.0}
    first = [{"kernel": "k.py", "kernelgym": {"off": {"status": "old off"}, "partial": {"status": "old partial"}},
              "kernelbench": kb_verdict}]
    second = [{"kernel": "k.py", "kernelgym": {"off": {"status": "new off"}},
               "kernelbench": {"compiled": False, "correct": False, "error": "timeout after 120 s"}}]
    rows = [{"kernel": "k.py", "kernelgym": {}}]
    keep_earlier(rows, first, redo=("off",))
    assert rows[0]["kernelgym"] == {"partial": {"status": "old partial"}}
    keep_earlier(rows, second)
    assert rows[0]["kernelgym"] == {"off": {"status": "new off"}, "partial": {"status": "old partial"}}
    assert rows[0]["kernelbench"] is kb_verdict  # a later run that did not judge the kernel replaces nothing
