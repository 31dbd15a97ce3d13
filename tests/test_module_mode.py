"""The module's mode is part of a task's meaning (``Task.mode``): KernelBench's problems run as constructed (training
mode, as KernelBench's evaluator runs them, so ``BatchNorm`` normalises with the batch's statistics), the bundled
suite in eval mode; reference and candidate always in the same mode."""

from __future__ import annotations

import textwrap

import pytest

from kernelgym.tasks import TaskError, load_tasks
from kernelgym.tasks.task import task_from_source
from conftest import SHORT


#: a KernelBench-format problem (no KERNELGYM dict): BatchNorm over inputs whose statistics are far from the
#: running ones (mean 0, variance 1), so the two modes give different outputs
BATCHNORM = textwrap.dedent('''
    import torch
    import torch.nn as nn

    class Model(nn.Module):
        def __init__(self, features):
            super().__init__()
            self.bn = nn.BatchNorm1d(features)

        def forward(self, x):
            return self.bn(x)

    batch_size = 64
    features = 32

    def get_inputs():
        return [torch.randn(batch_size, features) * 3.0 + 2.0]

    def get_init_inputs():
        return [features]
''')

#: the candidate: statistics from ``STATS`` (batch or running), the affine step in its own Triton kernel
CANDIDATE = textwrap.dedent('''
    import torch
    import torch.nn as nn
    import triton
    import triton.language as tl

    @triton.jit
    def affine(x_ptr, mean_ptr, inv_ptr, y_ptr, n, C: tl.constexpr, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        c = offs % C
        x = tl.load(x_ptr + offs, mask=mask)
        y = (x - tl.load(mean_ptr + c, mask=mask)) * tl.load(inv_ptr + c, mask=mask)
        tl.store(y_ptr + offs, y, mask=mask)

    class ModelNew(nn.Module):
        def __init__(self, features):
            super().__init__()
            self.bn = nn.BatchNorm1d(features)

        def forward(self, x):
            x = x.contiguous()
            if STATS == "batch":
                mean, var = x.mean(0), x.var(0, unbiased=False)
            else:
                mean, var = self.bn.running_mean, self.bn.running_var
            inv = torch.rsqrt(var + self.bn.eps).contiguous()
            y = torch.empty_like(x)
            affine[(triton.cdiv(x.numel(), 256),)](x, mean.contiguous(), inv, y, x.numel(), C=x.shape[1], BLOCK=256)
            return y

    STATS = "{stats}"
''')


def bn_task(meta: str = "", task_set: str = "kernelbench"):
    return task_from_source(BATCHNORM + meta, "L1/1_batchnorm", 1, task_set=task_set)


def test_the_mode_follows_the_task_set_unless_the_task_names_one():
    assert bn_task().mode == "as_constructed"
    assert bn_task(task_set="my_folder").mode == "as_constructed"
    assert bn_task(task_set="kernelgym").mode == "eval"
    assert bn_task('\nKERNELGYM = {"mode": "eval"}\n').mode == "eval"
    assert {task.mode for task in load_tasks()} == {"eval"}
    assert bn_task().key != bn_task('\nKERNELGYM = {"mode": "eval"}\n').key  # caches never mix the two


def test_an_unknown_mode_is_a_clear_error():
    with pytest.raises(TaskError, match="mode must be one of"):
        bn_task('\nKERNELGYM = {"mode": "training"}\n')


@pytest.mark.parametrize("meta, stats, status", [
    ("", "batch", "ok"),                                    # KernelBench: as constructed, batch statistics
    ("", "running", "incorrect"),
    ('\nKERNELGYM = {"mode": "eval"}\n', "running", "ok"),  # eval mode: running statistics
    ('\nKERNELGYM = {"mode": "eval"}\n', "batch", "incorrect"),
])
def test_reference_and_candidate_run_in_the_task_mode(judge, meta, stats, status):
    result = judge.evaluate(bn_task(meta), CANDIDATE.format(stats=stats), profile=SHORT, torch_policy="off")
    assert result.status == status, result.message


#: KernelBench's L2/66 in miniature: dropout with p = 0.2, random as constructed (KernelBench runs it so, and its
#: own evaluator cannot judge such a candidate correct but by chance), the identity in eval mode
DROPOUT = textwrap.dedent('''
    import torch
    import torch.nn as nn

    class Model(nn.Module):
        def __init__(self, p):
            super().__init__()
            self.dropout = nn.Dropout(p)

        def forward(self, x):
            return torch.softmax(self.dropout(x), dim=1)

    N = 16
    p = 0.2

    def get_inputs():
        return [torch.randn(N, 64)]

    def get_init_inputs():
        return [p]
''')


def test_the_linter_flags_a_problem_whose_reference_is_random_as_constructed():
    from kernelgym.judge.lint import lint_task

    small = '\nKERNELGYM = {"small": {"N": 8}}\n'
    random = lint_task(task_from_source(DROPOUT + small, "L2/66_dropout", 2, task_set="kernelbench"))
    assert random.checks["deterministic"] == (False, "same seed gave different outputs")
    evaled = lint_task(task_from_source(DROPOUT + small[:-2] + ', "mode": "eval"}\n', "L2/66_dropout", 2,
                                        task_set="kernelbench"))
    assert evaled.checks["deterministic"][0] is True
