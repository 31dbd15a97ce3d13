"""Degenerate tasks (an output that does not depend on the inputs, like KernelBench's L2/80, which returns zeros for
every input): the task linter fails them on KernelBench problems too, the judge flags every result on them
(``degenerate_task``), and the metrics count them and can leave them out."""

from __future__ import annotations

import textwrap

import pytest

from kernelgym.scoring import metrics
from kernelgym.judge.lint import lint_tasks
from kernelgym.judge.profiles import get_profile
from kernelgym.tasks import load_kernelbench

#: KernelBench format, tiny shapes: a GEMM whose result is centred over a one-element axis, so always zero
ZEROS = textwrap.dedent('''
    import torch
    import torch.nn as nn

    class Model(nn.Module):
        def __init__(self, in_features, out_features):
            super().__init__()
            self.gemm = nn.Linear(in_features, out_features)

        def forward(self, x):
            x = self.gemm(x)
            x = torch.max(x, dim=1, keepdim=True).values
            return x - x.mean(dim=1, keepdim=True)

    batch_size, in_features, out_features = 8, 16, 12

    def get_inputs():
        return [torch.randn(batch_size, in_features)]

    def get_init_inputs():
        return [in_features, out_features]
''')

SCALE = textwrap.dedent('''
    import torch
    import torch.nn as nn

    class Model(nn.Module):
        def __init__(self):
            super().__init__()

        def forward(self, x):
            return x * 3.0

    def get_inputs():
        return [torch.randn(8, 16)]

    def get_init_inputs():
        return []
''')

#: a "kernel" that writes zeros of the output's shape without reading anything
ZERO_KERNEL = textwrap.dedent('''
    import torch
    import torch.nn as nn
    import triton
    import triton.language as tl

    @triton.jit
    def zero_kernel(y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.zeros([BLOCK], dtype=tl.float32), mask=offs < n)

    class ModelNew(nn.Module):
        def __init__(self, in_features, out_features):
            super().__init__()

        def forward(self, x):
            y = torch.empty((x.shape[0], 1), device=x.device, dtype=x.dtype)
            zero_kernel[(1,)](y, y.numel(), BLOCK=64)
            return y
''')


@pytest.fixture(scope="module")
def kernelbench_tasks(tmp_path_factory):
    root = tmp_path_factory.mktemp("kb") / "KernelBench"
    for name, text in (("level2/80_Gemm_Max_Subtract_GELU.py", ZEROS), ("level1/9_Scale.py", SCALE)):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return load_kernelbench(root)


def test_the_linter_fails_a_kernelbench_problem_whose_output_ignores_its_inputs(kernelbench_tasks):
    reports = {r.task_id: r for r in lint_tasks(kernelbench_tasks)}
    degenerate = reports["L2/80_Gemm_Max_Subtract_GELU"]
    assert not degenerate.ok and not degenerate.checks["nonconstant"][0]
    assert not degenerate.checks["seed_varies"][0]
    assert reports["L1/9_Scale"].checks["nonconstant"][0] and reports["L1/9_Scale"].checks["seed_varies"][0]


@pytest.mark.timeout(300)
def test_results_on_a_degenerate_task_are_flagged_and_metrics_can_leave_them_out(kernelbench_tasks, judge):
    from conftest import GOOD  # noqa: F401  (the honest relu candidate is checked below through the relu task)

    task = kernelbench_tasks.get("L2/80_Gemm_Max_Subtract_GELU")
    zero = judge.evaluate(task, ZERO_KERNEL)
    assert zero.status == "ok"  # the constant kernel is right: that is what makes the task degenerate
    assert [f["name"] for f in zero.flags].count("degenerate_task") == 1
    rows = [zero.to_dict(), {"task_id": "L1/9_Scale", "status": "ok", "flags": []}]
    assert metrics.summarize(rows)["degenerate"] == 1
    assert [r["task_id"] for r in metrics.exclude_degenerate(rows)] == ["L1/9_Scale"]


@pytest.mark.timeout(300)
def test_an_honest_task_is_not_flagged(judge, relu_task):
    from conftest import GOOD

    result = judge.evaluate(relu_task, GOOD)
    assert result.status == "ok" and "degenerate_task" not in [f["name"] for f in result.flags]


#: KernelBench format: the largest magnitude, capped at 10. On standard inputs it varies with the seed; on outlier
#: inputs (magnitudes of 10x the peak) it is 10.0 for every seed, so only the outlier trials' outputs repeat.
SATURATING = textwrap.dedent('''
    import torch
    import torch.nn as nn

    class Model(nn.Module):
        def __init__(self):
            super().__init__()

        def forward(self, x):
            return torch.clamp(x.abs().max(), max=10.0)

    def get_inputs():
        return [torch.randn(8, 16)]

    def get_init_inputs():
        return []
''')

CAPPED_ABSMAX = textwrap.dedent('''
    import torch
    import torch.nn as nn
    import triton
    import triton.language as tl

    @triton.jit
    def capped_absmax_kernel(x_ptr, y_ptr, n, cap, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
        tl.store(y_ptr, tl.minimum(tl.max(tl.abs(x), axis=0), cap))

    class ModelNew(nn.Module):
        def __init__(self):
            super().__init__()

        def forward(self, x):
            y = torch.empty((), device=x.device, dtype=x.dtype)
            capped_absmax_kernel[(1,)](x.contiguous(), y, x.numel(), 10.0, BLOCK=128)
            return y
''')


@pytest.mark.timeout(300)
def test_outputs_that_repeat_only_on_outlier_inputs_do_not_flag_the_task(tmp_path, judge):
    root = tmp_path / "KernelBench"
    (root / "level1").mkdir(parents=True)
    (root / "level1" / "7_CappedAbsMax.py").write_text(SATURATING)
    task = load_kernelbench(root).get("L1/7_CappedAbsMax")

    result = judge.evaluate(task, CAPPED_ABSMAX, profile=get_profile("quick").with_overrides(outlier_trials=2))
    outlier_trials = [t for t in result.trials if t.get("stage") == "outlier"]
    assert result.status == "ok", result.message
    assert len(outlier_trials) >= 2  # the repeat is there to be seen: two outlier trials, both outputs 10.0
    assert "degenerate_task" not in [f["name"] for f in result.flags]


def test_a_task_is_degenerate_only_while_every_seed_gives_the_same_outputs():
    """One repeat among many seeds is a coincidence a low-entropy honest output has (a scalar loss over a large
    random input); a degenerate task repeats for every seed, and an evaluation that stopped after two seeds says
    nothing either way."""
    from kernelgym.judge.degeneracy import MIN_SEEDS, DegeneracyWatch

    assert MIN_SEEDS >= 3
    watch = DegeneracyWatch()
    assert watch.note(b"a", seed=1) is None  # one seed says nothing
    assert watch.note(b"a", seed=1) is None  # the same seed again says nothing either
    for seed in range(2, MIN_SEEDS):
        assert watch.note(b"a", seed=seed) is None  # an early stop after a chance match: not flagged
    assert watch.note(b"a", seed=MIN_SEEDS) is True
    assert not watch.settled
    assert watch.note(b"b", seed=99) is False
    assert watch.settled and watch.note(b"a", seed=100) is False  # once two differ, the task is not degenerate

    coincidence = DegeneracyWatch()
    assert [coincidence.note(p, s) for s, p in enumerate([b"a", b"b", b"a"])] == [None, False, False]


def test_signed_zeros_fingerprint_alike():
    """``linear(x) * 0`` gives +0.0 or -0.0 by the inputs' signs; a kernel writing 0.0 passes everywhere, so the
    outputs count as the same."""
    import torch

    from kernelgym.judge.degeneracy import output_fingerprint

    assert output_fingerprint((torch.tensor([0.0, -0.0, 0.0]),)) == output_fingerprint((torch.zeros(3),))
    assert output_fingerprint((torch.tensor([0.0, 1.0]),)) != output_fingerprint((torch.zeros(2),))
