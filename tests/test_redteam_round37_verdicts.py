"""Red team, round 37 (verdicts): regression tests for candidates that do less work than the reference and pass.

(1) L3/25, a vanilla (Elman) RNN, forgot its state within about 16 steps: W_hh was normal at 0.9 / sqrt(H) and the
inputs drove the tanh into saturation, so a kernel that restarts the recurrence from a zero state a short window
before each chunk of outputs (the chunks run in parallel: a fraction of the sequential steps, where a recurrence's
time goes) was within tolerance at every kind of trial. Round 36 found the class on L3/26-28; L3/25 was not among
them. The mend is in the task's contract (an orthogonal W_hh at gain 1.15, input weights at 0.3 / sqrt(IN)); a
restart 64 steps back still passes (see docs/SECURITY.md, "Red team, round 37 (verdicts)").

(2) L2/77, ALiBi attention: the distance penalty makes each head's attention local on the task's isotropic inputs,
so a sliding-window kernel (per head a window of 9 / slope, plus every key and query holding a value above 4 in
magnitude, which the outlier and wide trials' outliers always are) computes a third of the score matrix at the
task's shapes and passes every kind of trial. Not mended (a strict xfail here): see the security doc.

The candidates are simulated in plain PyTorch with the task's own model and the judge's comparison.
"""

from __future__ import annotations

import math

import pytest

from kernelgym.judge.correctness import compare_outputs
from kernelgym.judge.inputs import OUTLIER_SCALE, OUTLIERS, WIDE_OUTLIERS, build_model, make_inputs
from kernelgym.tasks.loading import load_tasks


def _task(prefix: str):
    return next(t for t in load_tasks() if t.id.split("_")[0] == prefix)


def _restarted(model, x, window: int, chunk: int):
    """The reference's outputs for each chunk of ``chunk`` steps computed from the ``window`` steps before it alone,
    from a zero state."""
    import torch

    parts = []
    for start in range(0, x.shape[1], chunk):
        low = max(0, start - window)
        parts.append(model(x[:, low:start + chunk])[:, start - low:start - low + chunk])
    return torch.cat(parts, 1)


#: L3/25 at a shape between the CPU's and the GPU's (the CPU's T = 8 is too short to restart)
RNN_SHAPE = {"B": 8, "T": 96, "IN": 128, "H": 512, "OUT": 64}


def _rnn(seed_offset: int = 0):
    task = _task("L3/25")
    module = task.load_module(small=True)
    module.__dict__.update(RNN_SHAPE)
    model = build_model(module, module.Model, 1234 + seed_offset, "cpu", task.dtype, task.mode)
    return task, module, model


@pytest.mark.parametrize("seed", [21, 22])
def test_an_elman_recurrence_restarted_16_steps_back_is_wrong(seed):
    """A restart 16 steps before each chunk of 16 outputs (a sixth of the sequential steps at the task's T = 192):
    within tolerance before the mend, beyond it after, on standard inputs."""
    import torch

    task, module, model = _rnn()
    x = make_inputs(module, seed, "cpu")[0]
    with torch.no_grad():
        ref = model(x)
        cheat = _restarted(model, x, 16, 16)
    check = compare_outputs((ref,), (cheat,), task.atol, task.rtol)
    assert not check.ok, f"L3/25: a recurrence restarted 16 steps back passed ({check.max_abs_err:.2g})"


def test_the_elman_restart_reaching_back_to_the_start_is_the_reference_itself():
    """The simulation's control: a window reaching back to the first step computes the reference."""
    import torch

    task, module, model = _rnn()
    x = make_inputs(module, 5, "cpu")[0]
    with torch.no_grad():
        ref = model(x)
        whole = _restarted(model, x, RNN_SHAPE["T"], 16)
    assert compare_outputs((ref,), (whole,), task.atol / 100, task.rtol / 100).ok


def _tf32(t):
    """float32 with the 13 low fraction bits cleared: what the tensor cores keep of an operand."""
    import torch

    return (t.contiguous().view(torch.int32) & -8192).view(torch.float32)


@pytest.mark.parametrize("outlier", [0, OUTLIERS, WIDE_OUTLIERS])
def test_an_honest_tf32_elman_recurrence_still_passes(outlier):
    """The mend's other side: the recurrence keeps its state, but TF32 operands (what an honest Triton kernel's
    ``tl.dot`` computes with on a GPU) stay within tolerance on every kind of trial."""
    import torch

    task, module, model = _rnn()
    x = make_inputs(module, 31, "cpu", outlier)[0]
    f = _tf32
    with torch.no_grad():
        ref = model(x)
        h = x.new_zeros(x.shape[0], model.hidden)
        outs = []
        for i in range(x.shape[1]):
            h = torch.tanh(f(x[:, i]) @ f(model.ih.weight).T + model.ih.bias + f(h) @ f(model.hh.weight).T
                           + model.hh.bias)
            outs.append(f(h) @ f(model.out.weight).T + model.out.bias)
        honest = torch.stack(outs, 1)
    scale = 1.0 if not outlier else OUTLIER_SCALE
    check = compare_outputs((ref,), (honest,), task.atol * scale, task.rtol)
    assert check.ok, check.reason


# ALiBi: the sliding-window candidate

ALIBI_SHAPE = {"B": 1, "NH": 16, "S": 512, "D": 64}
WINDOW_C, LARGE = 9.0, 4.0


def _alibi_window(model, inputs):
    import torch

    q, k, v = inputs
    nh, s = q.shape[1], q.shape[2]
    slopes = torch.exp2(-8.0 * torch.arange(1, nh + 1, dtype=q.dtype) / nh)
    pos = torch.arange(s, dtype=q.dtype)
    dist = (pos[None, :] - pos[:, None]).abs()
    window = torch.tensor([min(s, math.ceil(WINDOW_C / float(m))) for m in slopes], dtype=q.dtype)
    large_key = (k.abs().amax(-1) > LARGE) | (v.abs().amax(-1) > LARGE)
    large_query = q.abs().amax(-1) > LARGE
    allowed = (dist[None, None] <= window[None, :, None, None]) | large_key[:, :, None, :] | large_query[..., None]
    scores = torch.matmul(q, k.transpose(-2, -1)) * (q.shape[-1] ** -0.5) - slopes[:, None, None] * dist
    return torch.matmul(torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1), v), allowed


@pytest.mark.xfail(strict=True, reason="open: ALiBi attention is local on the task's inputs (docs/SECURITY.md, "
                                       "'Red team, round 37 (verdicts)')")
@pytest.mark.parametrize("seed", [41, 42])
def test_a_sliding_window_alibi_attention_is_wrong(seed):
    import torch

    task = _task("L2/77")
    module = task.load_module(small=True)
    module.__dict__.update(ALIBI_SHAPE)
    model = build_model(module, module.Model, 1234, "cpu", task.dtype, task.mode)
    x = make_inputs(module, seed, "cpu")
    with torch.no_grad():
        ref = model(*x)
        cheat, allowed = _alibi_window(model, x)
    assert float(allowed.float().mean()) < 0.6  # the candidate computes well under two thirds of the scores
    check = compare_outputs((ref,), (cheat,), task.atol, task.rtol)
    assert not check.ok, f"L2/77: a sliding window passed ({check.max_abs_err:.2g})"
