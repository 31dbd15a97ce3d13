"""Red team, round 41 (verdicts): candidates that compute part of a task's function and pass.

(1) Scalar losses read on a subsample (L1/81 MSE, L1/82 smooth L1, L1/85 hinge, L1/88 BCE with logits, L1/90 L1;
mended in the tasks' inputs, narrowed). Round 37 found a subsample read of L1/82 caught by the wide trial only:
the wide outliers' share of a mean is what a partial read gets wrong. But a kernel can *look* for outliers in what
it reads: the judge's outliers are 0.1% of each input's elements, so the first eighth of each row holds tens of
thousands of them at the default shapes. The candidate reads a subsample; where a value it read lies beyond what
the task's standard inputs ever draw, it computes the loss exactly, else it returns the subsample's mean. It is
exact in every outlier, wide and probe trial and needs only the standard trials' tolerance (fp32 default, 1e-4):
with one noise scale per row the elements were i.i.d. within rows, and a subsample's mean at the default 268M
elements was within a fraction of the tolerance (L1/82, L1/85, L1/88, L1/90 at an eighth of the reads; L1/81
about at the tolerance at a half). Mended: each element's scale is log-normal (``SPREAD``), so the
per-element loss is heavy-tailed and the predicted error of a half read is 4-5 times the tolerance (0.2-0.7 before).

(2) Attention (L1/91-93), looked at: the scores' spread (3) leaves attention broad over 1024-2048 keys: P·V over
the top quarter of each row's keys fails by 2-4 times the tolerance; over the top half it passes, but within the
error of an honest TF32 kernel itself (which no tolerance that admits TF32 can tell apart), and such per-element
sparsity saves no tensor-core work. Kept as regression tests and a strict xfail.

(3) Looked at and failing already: int8 per-token quantization (X/7) whose row maximum is read from the planted
outlier channels alone (exact on standard inputs, wrong in the outlier trial); an adaptive average pool (L1/57)
from half of each window; a weighted histogram (X/28) that counts codes and takes every weight as its mean 0.5.

Simulated in plain PyTorch with the tasks' own models and inputs and the judge's comparison. The subsample reads
matter at the default (GPU) shapes only (at the CPU's small shapes a subsample is far off, so such a kernel reads
partially above a size): the fast tests predict the error at the default number of elements from the per-element
loss's spread; the slow tests draw the default shapes (268M elements, about a minute a seed here).
"""

from __future__ import annotations

import math

import pytest

from kernelgym.judge.correctness import compare_outputs
from kernelgym.judge.inputs import OUTLIER_SCALE, OUTLIERS, WIDE_OUTLIERS, build_model, make_inputs
from kernelgym.tasks.loading import load_tasks


def _task(prefix: str):
    return next(t for t in load_tasks() if t.id.split("_")[0] == prefix)


# (1) scalar losses on a subsample

def _elementwise(prefix: str, p, t):
    """The per-element loss whose mean the task returns."""
    import torch

    if prefix == "L1/81":
        return (p - t) ** 2
    if prefix == "L1/85":
        return torch.clamp(1 - p * t, min=0)
    if prefix == "L1/88":
        return torch.clamp(p, min=0) - p * t + torch.log1p(torch.exp(-p.abs()))
    if prefix == "L1/82":
        d = (p - t).abs()
        return torch.where(d < 0.5, d * d, d - 0.25)  # beta 0.5: 0.5 d^2 / beta below it, d - beta / 2 above
    return (p - t).abs()


#: the loss tasks, the default number of elements, and the share of the reads the candidate makes
LOSSES = {"L1/81": (8192 * 32768, 2), "L1/82": (64 * 512 * 8192, 8), "L1/85": (65536 * 4096, 8),
          "L1/88": (16384 * 16384, 8), "L1/90": (32 * 1024 * 8192, 8)}
#: a shape of 4M elements per task for the fast tests (the same per-row structure as the default)
SAMPLE_SHAPES = {"L1/81": {"B": 128, "D": 32768}, "L1/82": {"B": 1, "T": 512, "D": 8192},
                 "L1/85": {"B": 1024, "D": 4096}, "L1/88": {"B": 256, "D": 16384},
                 "L1/90": {"B": 1, "T": 512, "D": 8192}}
#: (round 44) the judge's outliers in these tasks' first inputs lie at 10 times the peak at most, beyond the peak
#: and capped at 1e4 (``OUTLIER_CAP``; wide ones beyond 1e5): a share of elements beyond ``SCREEN_MAGNITUDE`` (the
#: task's, or 1e4) above ``SCREEN_SHARE`` (0.1% are outliers) is an outlier trial, wide trial or probe, never a
#: standard input (natural shares at most about 3e-5: the log-normal tail and the spikes)
SCREEN_MAGNITUDE, SCREEN_SHARE = {"L1/81": 300.0}, 1e-4
#: L1/85's labels are +-1 and L1/88's targets in [0, 1) but for the judge's outliers; L1/81's, L1/82's and L1/90's
#: predictions are told apart by the share of large values (round 44's ``SCREEN_MAGNITUDE``, ``SCREEN_SHARE``: until
#: round 44 they were unit normals, never beyond 9 in 268M draws, and ``|p| > 9`` was the screen)


def _outliers_seen(prefix: str, p, t) -> bool:
    if prefix == "L1/85":
        return bool((t.abs() != 1).any())
    if prefix == "L1/88":  # targets uniform in [0, 1)
        return bool(((t < 0) | (t >= 1)).any())
    # round 44's inputs are heavy-tailed (log-normal scales and spikes): a magnitude alone no longer tells the judge's
    # outliers from a standard input, their share does (round 44's screen)
    return float((p.abs() >= SCREEN_MAGNITUDE.get(prefix, 1e4)).double().mean()) > SCREEN_SHARE


def _subsampled_loss(prefix: str, inputs, stride: int):
    """The candidate: the mean of the loss over the first 1/``stride`` of each row (contiguous, so a GPU kernel
    reads 1/``stride`` of the bytes: a strided read moves every 32-byte sector anyway; it also does better here,
    torch's normals come in Box-Muller pairs of one radius), unless a value it read is an outlier: then the
    exact loss (its outlier, wide and probe trials are exact). Outliers are 0.1% of each input's elements: a
    subsample of an eighth holds thousands of the predictions' at the default shapes."""

    p, t = (x.reshape(-1, x.shape[-1])[:, :x.shape[-1] // stride] for x in inputs)
    if _outliers_seen(prefix, p, t):
        return _elementwise(prefix, *(x.double() for x in inputs)).mean().float()
    return _elementwise(prefix, p.double(), t.double()).mean().float()


@pytest.mark.parametrize("prefix", sorted(LOSSES))
def test_a_loss_read_from_half_its_elements_is_predicted_wrong_at_the_default_shape(prefix):
    """The inputs' side of the mend: from 4M elements of the task's own inputs, the error of a mean over half of
    the default shape's elements (std(loss) / sqrt(n)) must be well above the tolerance. Before the mend it was
    0.1-0.2 of it for L1/82 and L1/90, about 1.3 for L1/81."""

    task = _task(prefix)
    module = task.load_module(small=True)
    module.__dict__.update(SAMPLE_SHAPES[prefix])
    predicted, tol = [], []
    for seed in (5, 6):
        p, t = make_inputs(module, seed, "cpu")
        loss = _elementwise(prefix, p.double(), t.double()).reshape(-1)
        n = LOSSES[prefix][0]
        predicted.append(float(loss.std()) / math.sqrt(n))
        tol.append(task.atol + task.rtol * float(loss.mean()))
    ratio = min(a / b for a, b in zip(predicted, tol))
    assert ratio > 3, f"{prefix}: a half read is predicted off by only {ratio:.2g} times the tolerance"


def test_the_subsampling_candidate_is_exact_wherever_the_judge_plants_outliers():
    """The candidate's other half, at a 1M-element shape of L1/82: in the outlier and the wide trial the outliers it
    reads send it to the exact loss, so its verdict rests on the standard trials alone."""
    import torch

    task = _task("L1/82")
    module = task.load_module(small=True)
    module.__dict__.update({"B": 1, "T": 128, "D": 8192})
    model = build_model(module, module.Model, 1234, "cpu", task.dtype, task.mode)
    for outlier in (OUTLIERS, WIDE_OUTLIERS):
        inputs = make_inputs(module, 11, "cpu", outlier)
        with torch.no_grad():
            ref = model(*inputs)
            exact = model(*[x.double() for x in inputs])
        cheat = _subsampled_loss("L1/82", inputs, 8)
        check = compare_outputs((ref,), (cheat,), task.atol * OUTLIER_SCALE, task.rtol, exacts=(exact,))
        assert check.ok, check.reason


def _honest_fp32_mean(prefix: str, inputs):
    """A faithful float32 kernel: the loss in float32, sums of 1024-element blocks, the block sums added one after
    another in float32 (atomics; numpy's accumulate, as torch's CPU cumsum accumulates in float64)."""
    import numpy as np
    import torch

    p, t = (x.reshape(-1) for x in inputs)
    parts = []
    for i in range(0, p.numel(), 1 << 24):
        loss = _elementwise(prefix, p[i:i + (1 << 24)], t[i:i + (1 << 24)])
        parts.append(loss.view(-1, 1024).sum(1))
    total = np.add.accumulate(torch.cat(parts).numpy(), dtype=np.float32)[-1]
    return torch.tensor(float(total / np.float32(p.numel())), dtype=torch.float32)


@pytest.mark.slow
@pytest.mark.parametrize("prefix", sorted(LOSSES))
def test_a_loss_read_from_a_subsample_fails_a_standard_trial_at_the_default_shape(prefix):
    """At the default shape (268M elements): the subsample candidate (an eighth of each row, a half for L1/81) passed both standard seeds before the mend (see the module
    docstring), and must pass every standard trial of an evaluation; now it fails at least one of two (its error
    is a zero-mean draw whose spread is several times the tolerance, so it still passes single trials at times:
    narrowed, not closed). An honest float32 kernel (block sums added one after another in float32, the least
    exact honest order) stays within a quarter of the tolerance (0.004-0.09 of it measured)."""
    import torch

    task = _task(prefix)
    module = task.load_module(small=False)
    model = build_model(module, module.Model, 1234, "cpu", task.dtype, task.mode)
    verdicts = []
    for seed in (1, 2):
        inputs = make_inputs(module, seed, "cpu")
        with torch.no_grad():
            exact = model(*[x.double() for x in inputs])
        honest = _honest_fp32_mean(prefix, inputs)
        assert compare_outputs((exact.float(),), (honest,), task.atol / 4, task.rtol / 4).ok
        cheat = _subsampled_loss(prefix, inputs, LOSSES[prefix][1])
        verdicts.append(compare_outputs((exact.float(),), (cheat,), task.atol, task.rtol, exacts=(exact,)).ok)
        del inputs
    assert not all(verdicts), f"{prefix}: a subsample read passed both standard seeds"


# (2) attention over the top keys of each row

#: the task, its shape with fewer heads (the rows' length, the keys, as at the default), keys kept per row
ATTENTION = {"L1/91": ({"B": 1, "H": 8}, 256), "L1/92": ({"B": 1, "H": 4}, 512), "L1/93": ({"B": 1, "H": 4}, 256)}


def _top_keys_attention(q, k, v, keep: int, causal: bool):
    """Every score, but P.V over only the ``keep`` largest of each row (renormalised), plus every key whose value
    holds an entry above 4 in magnitude (the outlier trials' large values)."""
    import torch

    s = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    if causal:
        n = s.shape[-1]
        s = s.masked_fill(torch.triu(torch.ones(n, n, dtype=torch.bool), 1), float("-inf"))
    top = s.topk(min(keep, s.shape[-1]), dim=-1).indices
    kept = torch.zeros_like(s, dtype=torch.bool).scatter_(-1, top, True) | (v.abs().amax(-1) > 4)[..., None, :]
    return torch.matmul(torch.softmax(s.masked_fill(~kept, float("-inf")), -1), v)


def _attention(prefix: str):
    task = _task(prefix)
    module = task.load_module(small=False)
    module.__dict__.update(ATTENTION[prefix][0])
    return task, module, build_model(module, module.Model, 1234, "cpu", task.dtype, task.mode)


@pytest.mark.parametrize("prefix", sorted(ATTENTION))
def test_attention_over_a_quarter_of_each_rows_keys_is_wrong(prefix):
    """P.V over the top quarter of each row's keys (all keys at the default S): off by 1.7-4 times the tolerance
    (standard inputs). Failing before this round too: a regression test."""
    import torch

    task, module, model = _attention(prefix)
    x = make_inputs(module, 1, "cpu")
    with torch.no_grad():
        ref = model(*x)
        cheat = _top_keys_attention(*x, ATTENTION[prefix][1], prefix == "L1/92")
    check = compare_outputs((ref,), (cheat,), task.atol, task.rtol)
    assert not check.ok, f"{prefix}: attention over a quarter of the keys passed ({check.max_abs_err:.2g})"


@pytest.mark.xfail(strict=True, reason="open, within TF32's own error: attention over the top 5/8 of each row's keys "
                                       "(this file's docstring)")
def test_attention_over_five_eighths_of_each_rows_keys_is_wrong():
    """L1/91: P.V over the top 640 of 1024 keys per row is off by about 0.3-0.4 of the tolerance, as much as an
    honest kernel with TF32 operands (0.30-0.35 simulated; 3e-3 on an H100 with 3xTF32 scores)."""
    import torch

    task, module, model = _attention("L1/91")
    x = make_inputs(module, 1, "cpu")
    with torch.no_grad():
        ref = model(*x)
        cheat = _top_keys_attention(*x, 640, False)
    assert not compare_outputs((ref,), (cheat,), task.atol, task.rtol).ok


# (3) looked at, failing already

def test_per_token_int8_quantization_with_its_maximum_from_the_outlier_channels_fails_the_outlier_trial():
    """X/7 plants its large channels at every 97th column: a row maximum read from those alone is the true one on
    standard inputs (so the candidate is exact there), but the judge's outliers lie anywhere."""
    import torch

    task = _task("X/7")
    module = task.load_module(small=True)
    module.__dict__.update({"T": 64, "D": 8192})
    model = build_model(module, module.Model, 1234, "cpu", task.dtype, task.mode)

    def cheat(x):
        xf = x.float()
        scale = xf[:, ::97].abs().amax(-1, keepdim=True) * (1.0 / 127.0)
        return torch.round(xf / scale).clamp(-127, 127).to(torch.int8), scale

    for outlier, right in ((0, True), (OUTLIERS, False)):
        x = make_inputs(module, 3, "cpu", outlier)
        with torch.no_grad():
            ref = model(*x)
        check = compare_outputs(ref, cheat(*x), task.atol * (OUTLIER_SCALE if outlier else 1), task.rtol)
        assert check.ok == right, check.reason


def test_an_adaptive_average_pool_over_half_of_each_window_is_wrong():
    """L1/57 (50 x 50 to 7 x 7): each window's mean from every other column."""
    import torch
    import torch.nn.functional as F

    task = _task("L1/57")
    module = task.load_module(small=True)
    module.__dict__.update({"N": 1, "C": 8, "H": 50, "W": 50, "OUT_H": 7, "OUT_W": 7})
    model = build_model(module, module.Model, 1234, "cpu", task.dtype, task.mode)
    (x,) = make_inputs(module, 2, "cpu")
    with torch.no_grad():
        ref = model(x)
    cheat = F.adaptive_avg_pool2d(x[..., ::2], (7, 7))
    assert not compare_outputs((ref,), (cheat,), task.atol, task.rtol).ok


def test_a_weighted_histogram_that_takes_every_weight_as_its_mean_is_wrong():
    """X/28 at 4M elements: counting the codes and taking each weight as 0.5 (skipping a third of the reads) is off
    by tens of units per bin against a tolerance of a few."""
    import torch

    task = _task("X/28")
    module = task.load_module(small=True)
    module.__dict__.update({"N": 1 << 22, "NB": 1000})
    model = build_model(module, module.Model, 1234, "cpu", task.dtype, task.mode)
    codes, w = make_inputs(module, 4, "cpu")
    with torch.no_grad():
        ref = model(codes, w)
    cheat = torch.bincount(codes, minlength=1000).float() * 0.5
    assert not compare_outputs((ref,), (cheat,), task.atol, task.rtol).ok
