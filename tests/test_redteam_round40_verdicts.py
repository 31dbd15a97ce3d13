"""Red team, round 40 (verdicts): candidates that read part of a global reduction's input and pass.

(1) X/16 (gradient clipping by the global norm, then an Adam step): the clip coefficient scales ``exp_avg``'s new
term, about 1e-2 in size, so at the default fp32 atol of 1e-4 a coefficient off by 1% was within tolerance. A kernel
that reads the global norm from every 64th gradient element (scaled up) skips the norm's own pass over the gradient
(an eighth of the task's memory traffic) and passed the standard trials at the default N = 25M (the outlier trial
too where it checks the gradient's largest value in its update pass, which reads every element anyway, and redoes
the step with the exact norm only then). Mended in the task's contract: ``atol = 1e-6``.

(2) L1/36 (x / ||x||_F over 629M elements): the output is the input times one scalar, so a relative error of the
norm under rtol (1e-4) passes everywhere; with i.i.d. unit normals the norm of every 4th element, scaled up, is off
by 5e-5 (every 2nd by 3e-5) at the default shape: a quarter of the reduction's reads (the norm pass is one of the
honest kernel's three passes over 2.5 GB). Mended in the task's inputs: each element's scale is log-normal, so a
partial read's error grows by sqrt(Var(x^2)) / E(x^2) (110 times).

(3) Not open: L1/33 (instance norm over 224 x 224 planes, tolerance 1e-3): statistics from every other element fail.

The candidates are simulated in plain PyTorch with the task's own model and the judge's comparison (at the CPU's
small shapes a partial read is far off, so a candidate reads partially only at the default shapes, which only the
GPU judge runs). See docs/SECURITY.md, "Red team, round 40 (verdicts)".
"""

from __future__ import annotations

import pytest

from kernelgym.judge.correctness import compare_outputs
from kernelgym.judge.inputs import SIGNED_OUTLIERS, build_model, make_inputs
from kernelgym.tasks.loading import load_tasks


def _task(prefix: str):
    return next(t for t in load_tasks() if t.id.split("_")[0] == prefix)


# X/16: the clipped Adam step

def _adam(model, param, grad, exp_avg, exp_avg_sq, norm):
    """The task's step with the global norm ``norm`` given (float32, as a kernel computes it)."""
    import torch

    coef = torch.clamp(model.max_norm / (norm + 1e-6), max=1.0)
    g = grad * coef
    b1, b2, t = model.beta1, model.beta2, model.step
    m = b1 * exp_avg + (1 - b1) * g
    v = b2 * exp_avg_sq + (1 - b2) * g * g
    denom = v.sqrt() / ((1 - b2 ** t) ** 0.5) + model.eps
    return param - (model.lr / (1 - b1 ** t)) * (m / denom), m, v


def _sampled_norm(grad, stride: int):
    """The global norm from every ``stride``-th element, scaled up (exact arithmetic: the sampling is the error)."""
    sub = grad[::stride]
    return sub.double().pow(2).sum().mul(grad.numel() / sub.numel()).sqrt().float()


def _honest_norm(grad, block: int = 1024):
    """A faithful float32 norm: per block of ``block`` elements, then the blocks' sums added one after another in
    float32 (a kernel's atomic adds, the least exact honest order)."""
    import torch

    n = grad.numel() // block * block
    parts = torch.cat([grad[:n].view(-1, block).pow(2).sum(1), grad[n:].pow(2).sum().reshape(1)])
    return torch.cumsum(parts, 0)[-1].sqrt()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_clip_coefficient_off_by_a_tenth_of_a_percent_is_wrong(seed):
    """The contract's side of the mend, at the CPU's shape: a step whose clip coefficient is off by 1e-3 (the error
    of a norm read from about 1 element in 16 at the default N) moves ``exp_avg`` by up to 4e-5: within the old atol
    of 1e-4, beyond the new 1e-6."""
    import torch

    task = _task("X/16")
    module = task.load_module(small=True)
    model = build_model(module, module.Model, 1234, "cpu", task.dtype, task.mode)
    inputs = make_inputs(module, seed, "cpu")
    with torch.no_grad():
        ref = model(*inputs)
        off = _adam(model, *inputs, torch.linalg.vector_norm(inputs[1]) / (1 + 1e-3))
    check = compare_outputs(ref, off, task.atol, task.rtol)
    assert not check.ok, f"X/16: a clip coefficient off by 1e-3 passed ({check.max_abs_err:.2g})"


@pytest.mark.slow
def test_an_adam_step_with_its_global_norm_read_from_every_64th_element_is_wrong():
    """At the default N (25M): the norm from every 64th gradient element passed a standard trial before the mend
    (off by 7.5e-5 against atol 1e-4 for this seed, against the float64 result), and fails now; an honest float32
    step (block sums added in float32) stays within the new tolerance on standard and outlier inputs."""
    import torch

    task = _task("X/16")
    module = task.load_module(small=False)
    model = build_model(module, module.Model, 1234, "cpu", task.dtype, task.mode)
    for seed, outlier, scale, cheat in ((2, 0, 1.0, True), (3, SIGNED_OUTLIERS, 10.0, False)):
        inputs = make_inputs(module, seed, "cpu", outlier)
        with torch.no_grad():
            ref = model(*inputs)
            exact = tuple(model(*[x.double() for x in inputs]))  # the CPU's float32 norm over 25M drifts
            honest = _adam(model, *inputs, _honest_norm(inputs[1]))
            check = compare_outputs(ref, honest, task.atol * scale, task.rtol, exacts=exact)
            assert check.ok, f"X/16: an honest step failed ({check.reason})"
            if cheat:
                sampled = _adam(model, *inputs, _sampled_norm(inputs[1], 64))
                check = compare_outputs(ref, sampled, task.atol * scale, task.rtol, exacts=exact)
                assert not check.ok, f"X/16: a norm read from 1 element in 64 passed ({check.max_abs_err:.2g})"


# L1/36: x / ||x||_F

#: L1/36's default number of elements (N * C * H * W)
FROBENIUS_DEFAULT = 96 * 64 * 320 * 320


def test_a_frobenius_norm_read_from_every_other_element_is_predicted_wrong_at_the_default_shape():
    """The inputs' side of the mend, without the 2.5 GB of the default shape: a norm read from every other element
    (scaled up) is off by 0.5 * sqrt(kappa / n) relative, kappa = Var(x^2) / E(x^2)^2 of the task's elements (2 for
    unit normals: 2.8e-5 at the default n, under rtol 1e-4). The task's inputs must make it larger than rtol."""
    task = _task("L1/36")
    module = task.load_module(small=True)
    module.__dict__.update({"N": 1, "C": 16, "H": 512, "W": 512})
    x = make_inputs(module, 7, "cpu")[0].reshape(-1).double()
    sq = x * x
    kappa = float(sq.var() / sq.mean() ** 2)
    predicted = 0.5 * (kappa / FROBENIUS_DEFAULT) ** 0.5
    assert predicted > task.rtol, f"L1/36: a half read of the norm is off by only {predicted:.2g} (kappa {kappa:.3g})"


def _sum_of_squares(x) -> float:
    return sum(float(x[i:i + (1 << 24)].double().pow(2).sum()) for i in range(0, x.numel(), 1 << 24))


@pytest.mark.slow
def test_a_frobenius_norm_read_from_every_other_element_is_wrong_at_the_default_shape():
    """At the default shape (629M elements): the norm of every other element, scaled up, is off by more than rtol
    (by 3.5e-5 at most on four seeds before the mend, by 2.3e-3 after), while an honest float32 norm (block sums added in float32) is
    within a tenth of it."""
    import torch

    task = _task("L1/36")
    module = task.load_module(small=False)
    x = make_inputs(module, 1, "cpu")[0].reshape(-1)
    whole = _sum_of_squares(x) ** 0.5
    half = (_sum_of_squares(x[::2]) * 2) ** 0.5
    parts = torch.cat([x[i:i + (1 << 24)].view(-1, 1024).pow(2).sum(1) for i in range(0, x.numel(), 1 << 24)])
    honest = float(torch.cumsum(parts, 0)[-1]) ** 0.5
    assert abs(half / whole - 1) > task.rtol, f"L1/36: a half read was off by {half / whole - 1:.2g} only"
    assert abs(honest / whole - 1) < task.rtol / 10, f"L1/36: an honest norm was off by {honest / whole - 1:.2g}"


# L1/33: instance norm (not open)

def test_instance_norm_statistics_from_every_other_element_are_wrong():
    """A kernel that takes each plane's mean and variance from every other element (half the statistics pass's
    reads) is off by far more than the 1e-3 tolerance at the default 224 x 224 planes (a few channels of them)."""
    import torch

    task = _task("L1/33")
    module = task.load_module(small=True)
    module.__dict__.update({"N": 1, "C": 8, "H": 224, "W": 224})
    model = build_model(module, module.Model, 1234, "cpu", task.dtype, task.mode)
    x = make_inputs(module, 3, "cpu")[0]
    with torch.no_grad():
        ref = model(x)
        sub = x[..., ::2]
        mean = sub.mean(dim=(2, 3), keepdim=True)
        var = sub.var(dim=(2, 3), unbiased=False, keepdim=True)
        norm = model.norm
        cheat = (x - mean) / torch.sqrt(var + norm.eps) * norm.weight[:, None, None] + norm.bias[:, None, None]
        whole = (x - x.mean(dim=(2, 3), keepdim=True)) / torch.sqrt(
            x.var(dim=(2, 3), unbiased=False, keepdim=True) + norm.eps) * norm.weight[:, None, None] \
            + norm.bias[:, None, None]
    assert compare_outputs((ref,), (whole,), task.atol, task.rtol).ok  # the simulation's control
    assert not compare_outputs((ref,), (cheat,), task.atol, task.rtol).ok
