"""A user's round 4: KernelBench's own problems served from a local folder (awkward problems included: a scalar
argument, no constructor arguments, two problems with one number, a level the folder lacks), ``kernelgym eval DIR``
over them and over the bundled suite, and ``kernelgym collect`` with the replay policy. Each defect test fails on
the code before its fix; the one test of working behaviour guards what no other test covers (a KernelBench problem
whose ``get_inputs`` returns plain numbers, judged for real)."""

from __future__ import annotations

import contextlib
import textwrap
from pathlib import Path

import gymnasium as gym
import pytest

import kernelgym  # noqa: F401 - registers the ids
from conftest import GOOD, InstantEvaluator
from kernelgym import cli
from kernelgym.data.folder_eval import evaluate_folder
from kernelgym.data.policies import ReplayPolicy
from kernelgym.envs import KernelEnv
from kernelgym.tasks import TaskError, load_kernelbench, load_tasks
from kernelgym.testing.candidates import TEST_TASKS


def _problem(forward: str, inputs: str, signature: str = "x") -> str:
    """A KernelBench problem file: no constructor arguments, ``forward(signature)`` returning ``forward``."""
    return textwrap.dedent(f'''
        import torch
        import torch.nn as nn

        class Model(nn.Module):
            def __init__(self):
                super(Model, self).__init__()

            def forward(self, {signature}):
                return {forward}

        batch_size = 16
        dim = 64

        def get_inputs():
            return {inputs}

        def get_init_inputs():
            return []
    ''')


#: a problem whose second argument is a plain float, one whose second is a plain int, and two numbered 4
PROBLEMS = {
    "level1/1_Scale_by_scalar.py": _problem("A * s", "[torch.randn(batch_size, dim), 3.14]", "A, s"),
    "level1/2_Sum_dim.py": _problem("torch.sum(x, dim=dim, keepdim=True)", "[torch.randn(batch_size, dim), 1]",
                                    "x, dim"),
    "level1/4_ReLU.py": _problem("torch.relu(x)", "[torch.randn(batch_size, dim)]"),
    "level1/4_GELU.py": _problem("torch.nn.functional.gelu(x)", "[torch.randn(batch_size, dim)]"),
    "level2/1_ReLU_twice.py": _problem("torch.relu(torch.relu(x))", "[torch.randn(batch_size, dim)]"),
}


def kernelbench_tree(root: Path) -> Path:
    """A KernelBench checkout in miniature (``root/KernelBench/level<N>/...``) holding :data:`PROBLEMS`."""
    for name, text in PROBLEMS.items():
        path = root / "KernelBench" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


SCALE = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl

@triton.jit
def scale_kernel(x_ptr, y_ptr, s, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * s{wrong}, mask=mask)

class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, s):
        A = A.contiguous()
        y = torch.empty_like(A)
        scale_kernel[(triton.cdiv(A.numel(), 256),)](A, y, s, A.numel(), BLOCK=256)
        return y
'''


# -- working behaviour no other test covers ---------------------------------------------------------------------
def test_a_kernelbench_problem_with_a_plain_number_argument_is_judged_for_real(tmp_path):
    """``get_inputs()`` returning ``[tensor, 3.14]`` (KernelBench has such problems): the number reaches both
    models, a kernel that uses it is correct and one that is off by 0.5 is incorrect, on the real judge."""
    env = gym.make("KernelBench-L1-v0", tasks=str(kernelbench_tree(tmp_path / "kb")), device="cpu", max_turns=2)
    try:
        _, info = env.reset(seed=0, options={"task_id": "L1/1_Scale_by_scalar"})
        assert info["task_set"] == "kernelbench"
        _, reward, terminated, _, info = env.step(SCALE.format(wrong=" + 0.5"))
        assert info["result"]["status"] == "incorrect" and not terminated and reward == 0.0, info["result"]["message"]
        _, reward, terminated, _, info = env.step(SCALE.format(wrong=""))
        assert info["result"]["status"] == "ok" and terminated and reward > 0, info["result"]["message"]
    finally:
        env.close()


# -- 1: eval DIR says why no file answered ------------------------------------------------------------------------
def test_eval_dir_whose_files_answer_no_task_says_why_for_each(tmp_path, capsys):
    """A folder holding only ``level_1_problem_4_sample_0_kernel.py`` (two problems are numbered 4) was refused
    with "no candidate file ... answers a known task (expected e.g. L1/15_relu.py or
    level_1_problem_15_sample_0_kernel.py)": the name it suggested is the one the user had used, the task id a
    bundled one, and the reason (ambiguous) was dropped."""
    kb = kernelbench_tree(tmp_path / "kb")
    gen = tmp_path / "gen"
    gen.mkdir()
    (gen / "level_1_problem_4_sample_0_kernel.py").write_text(GOOD)
    (gen / "level_1_problem_9_sample_0_kernel.py").write_text(GOOD)
    code = cli.main(["eval", str(gen), "--tasks", str(kb), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert "level_1_problem_4_sample_0_kernel.py: ambiguous: matches L1/4_GELU, L1/4_ReLU" in err, err
    assert "name the file by task id, e.g. L1/4_GELU.py" in err, err
    assert "level_1_problem_9_sample_0_kernel.py: matches no known task id" in err, err
    assert "L1/15_relu" not in err and "L1/1_Scale_by_scalar.py" in err, err  # examples from the tasks given
    assert not (tmp_path / "gen-eval").exists()


# -- 2: replay never answers two problems with one file -------------------------------------------------------
def test_replay_given_the_tasks_leaves_an_ambiguous_file_unplayed(tmp_path, capsys):
    """``kernelgym collect --replay-dir`` over KernelBench's naming played ``level_1_problem_4_..._kernel.py`` (a
    ReLU) for both problems numbered 4, recording a ReLU kernel as the GELU problem's answer, where ``kernelgym
    eval`` lists the same file as ambiguous and evaluates it for neither."""
    kb = kernelbench_tree(tmp_path / "kb")
    gen = tmp_path / "gen"
    gen.mkdir()
    (gen / "level_1_problem_4_sample_0_kernel.py").write_text(GOOD)
    (gen / "level_1_problem_2_sample_0_kernel.py").write_text(GOOD)
    ids = load_tasks(kb).ids
    policy = ReplayPolicy(gen, task_ids=ids)
    assert not policy.has("L1/4_ReLU") and not policy.has("L1/4_GELU") and policy.has("L1/2_Sum_dim")
    assert ReplayPolicy(gen, task_ids=["L1/4_ReLU"]).has("L1/4_ReLU")  # unambiguous among the tasks given
    out = tmp_path / "eps.jsonl"
    code = cli.main(["collect", "--out", str(out), "--tasks", str(kb), "--replay-dir", str(gen),
                     "--task", "L1/4_ReLU", "--task", "L1/4_GELU", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and "the replay policy has no candidate for any selected task" in err, err
    assert not out.exists()


# -- 3: a judge fault in eval DIR is retried, not kept -----------------------------------------------------------
class FaultyEvaluator(InstantEvaluator):
    """An InstantEvaluator whose every verdict is the judge's own failure (``judge_error``)."""

    def evaluate(self, task, text, backend="triton", profile="quick", torch_policy="partial"):
        result = super().evaluate(task, text, backend, profile, torch_policy)
        result.status, result.message = "crashed", "the judge ran out of memory"
        result.add_flag("judge_error", "MemoryError in the judge")
        return result


def _generations(root: Path) -> Path:
    (root / "L1").mkdir(parents=True)
    (root / "L1" / "1_scaled_relu.py").write_text(GOOD)
    return root


def test_eval_dir_resume_evaluates_again_a_file_the_judge_failed(tmp_path):
    """A verdict that is the judge's failure (``judge_fault``: README says drop the sample) was written to
    results.jsonl like any other and ``--resume`` reused it forever: the file stayed "crashed" in every report."""
    gen, tasks = _generations(tmp_path / "gen"), load_tasks(TEST_TASKS)
    first = evaluate_folder(gen, tasks, tmp_path / "out", evaluator=FaultyEvaluator(), progress=False)
    assert first.report["judge_faults"] == ["L1/1_scaled_relu.py"] and first.report["overall"]["correct"] == 0
    again = evaluate_folder(gen, tasks, tmp_path / "out", evaluator=InstantEvaluator(), progress=False, resume=True)
    assert [r["result"]["status"] for r in again.rows] == ["ok"] and again.report["judge_faults"] == []
    assert again.report["overall"]["correct"] == 1


def test_eval_dir_cli_names_judge_faults_and_exits_1(tmp_path, capsys, monkeypatch):
    from kernelgym.cli import evaluate

    monkeypatch.setattr(evaluate, "ray_evaluator", lambda args: contextlib.nullcontext(FaultyEvaluator()))
    gen = _generations(tmp_path / "gen")
    code = cli.main(["eval", str(gen), "--tasks", str(TEST_TASKS), "--no-progress"])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "judge failed on 1 file(s)" in out and "--resume" in out, out


# -- 4: a KernelBench id on a folder without its level says so --------------------------------------------------
def test_a_kernelbench_id_on_a_folder_without_its_level_names_the_levels_there(tmp_path):
    """``gym.make("KernelBench-L3-v0", tasks=PATH)`` on a checkout without level 3 said only "no task matches the
    given selection"."""
    kb = str(kernelbench_tree(tmp_path / "kb"))
    with pytest.raises(TaskError, match=r"no KernelBench problem of level 3 .*levels there: 1, 2"):
        gym.make("KernelBench-L3-v0", tasks=kb, evaluator=InstantEvaluator())
    with pytest.raises(TaskError, match=r"level 3, 4 .*levels there: 1, 2"):
        load_kernelbench(kb, levels=[3, 4])
    assert load_kernelbench(kb, levels=[2, 3]).ids == ["L2/1_ReLU_twice"]  # some level there: no error


def test_an_empty_selection_names_the_filters_and_what_there_is(tmp_path):
    kb = str(kernelbench_tree(tmp_path / "kb"))
    with pytest.raises(ValueError, match=r"pattern='L1/\*conv\*'.*5 tasks.*L1/1_Scale_by_scalar"):
        gym.make("KernelBench-v0", tasks=kb, pattern="L1/*conv*", evaluator=InstantEvaluator())
    with pytest.raises(ValueError, match=r"categories=\['Loss'\].*categories there: Activation, Math, Reduce"):
        KernelEnv(tasks=kb, task_set="kernelbench", categories=["Loss"], evaluator=InstantEvaluator())


# -- 5: a checkout's KernelBench/ folder is KernelBench's problems everywhere -------------------------------------
def test_the_checkouts_problems_folder_is_the_kernelbench_set_on_the_command_line_too(tmp_path, capsys):
    """``gym.make("KernelBench-L1-v0", tasks="kb/KernelBench")`` served the problems as task set ``kernelbench``;
    ``kernelgym eval`` / ``collect --tasks kb/KernelBench`` (and ``load_tasks``) labelled the same problems
    ``KernelBench``, with another bfloat16 tolerance, and a ``--resume`` across the two refused the file."""
    problems = kernelbench_tree(tmp_path / "kb") / "KernelBench"
    assert {t.task_set for t in load_tasks(problems)} == {"kernelbench"}
    assert load_tasks(problems).ids == load_kernelbench(problems, levels=[1, 2]).ids
    assert cli.main(["tasks", "list", "--tasks", str(problems), "--ids"]) == 0
    assert "L1/4_GELU" in capsys.readouterr().out
    other = tmp_path / "mine" / "level1"  # any other folder keeps its own name
    other.mkdir(parents=True)
    (other / "4_ReLU.py").write_text(PROBLEMS["level1/4_ReLU.py"])
    assert load_tasks(other.parent)[0].task_set == "mine"


def test_a_reference_that_fails_to_import_is_the_judges_fault_not_the_candidates(judge, relu_task):
    """The worker dies while starting (the task's module fails to import) before any candidate code ran: a crash the
    trainer must drop and a dataset must leave out, so flagged ``judge_error`` (it came back unflagged, reward 0)."""
    import dataclasses

    from conftest import GOOD

    broken = dataclasses.replace(relu_task, id="L1/999_broken_import",
                                 source="import not_a_real_module_kernelgym\n" + relu_task.source)
    result = judge.evaluate(broken, GOOD)
    assert result.status == "crashed" and "not the candidate's fault" in result.message, result.message
    assert result.judge_fault and [f["name"] for f in result.flags] == ["judge_error"]


def test_a_level_one_problems_category_is_not_guessed_from_its_number_and_path():
    """``L1/1_Scale_by_scalar`` was guessed ``Fusion``: its level's path and number gave it three underscores. A
    name without a hint is ``Math`` at level 1 (single operations) and ``Fusion`` from level 2 on."""
    from kernelgym.tasks import guess_category

    assert guess_category("L1/1_Scale_by_scalar", 1) == "Math"
    assert guess_category("L1/1_Scale_by_scalar") == "Math"
    assert guess_category("L2/7_Scale_Shift_Clamp", 2) == "Fusion"
    assert guess_category("L3/5_AlexNet", 3) == "Fusion"
    assert guess_category("L1/19_ReLU", 1) == "Activation"
    assert guess_category("L2/12_Gemm_Multiply_LeakyReLU", 2) == "MatrixMultiply"  # the first hint, as before
