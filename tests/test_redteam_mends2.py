"""Red-team regressions on the 2026-12-07 mends (a second helper): ways around the Random tasks' independence test
(:func:`kernelgym.judge.statistical.lag_gap`). Each a wrong kernel (or its output) that passed the mend, and the
honest draws that must still pass. See docs/SECURITY.md ("Known limits")."""

from __future__ import annotations

import pytest

from conftest import SHORT



def _draws(n: int, seed: int):
    import torch

    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(n, generator=gen) + 0.5
    a, b, d = (x + 0.75 * torch.randn(n, generator=gen) for _ in range(3))
    return x, gen, a, b, d


def _hashed_pool(n: int, block: int, pool: int, gen, signed: bool):
    """Noise of 16 (``block / pool``) times fewer draws: each block of ``block`` elements draws ``pool`` numbers and
    each element takes one at a hashed (fixed, scrambled) position, with a hashed sign where ``signed``."""
    import torch

    fixed = torch.Generator().manual_seed(1234)
    slot = torch.randperm(block, generator=fixed) % pool
    sign = (torch.randperm(block, generator=fixed) % 2) * 2.0 - 1.0 if signed else torch.ones(block)
    return (torch.randn(n // block, pool, generator=gen)[:, slot] * sign).reshape(-1)


@pytest.mark.parametrize("signed", [False, True])
def test_noise_reused_at_hashed_positions_within_a_block_is_not_independent(signed):
    """Reuse spread thin over many lags (a few pairs at each lag below the block's size) stood out at no single lag
    (at most 8 standard errors against ``LAG_Z = 16``): every case below passed ``compare_statistics``. The sum over
    a band of lags catches it, and where the signs cancel that sum, the squared residuals' sum."""
    from kernelgym.judge.statistical import compare_statistics, lag_gap

    n = 131072
    for seed in range(2):
        x, gen, a, b, d = _draws(n, seed)
        cheat = x + 0.75 * _hashed_pool(n, 1024, 64, gen, signed)
        reason = lag_gap(cheat, a, b, d, "cpu")
        assert reason is not None and "not drawn independently" in reason, seed
        assert not compare_statistics(a, cheat, 1e-4, 1e-4, [b, d])[0]


def test_noise_reused_beyond_half_the_window_is_not_independent():
    """Lags were tested up to half the window only: noise of the last 30% repeating the first 30% (negated, so the
    mean stays right) 0.7 of the output apart passed at the CPU's shapes (on a GPU, any reuse 2 to 4 M elements
    apart: a persistent kernel reusing its registers' noise on its next sweep)."""
    from kernelgym.judge.statistical import compare_statistics, lag_gap

    n = 131072
    for seed in range(2):
        x, gen, a, b, d = _draws(n, seed)
        noise = __import__("torch").randn(n, generator=gen)
        lag = int(0.7 * n)
        noise[lag:] = -noise[:n - lag]
        cheat = x + 0.75 * noise
        assert lag_gap(cheat, a, b, d, "cpu") is not None
        assert not compare_statistics(a, cheat, 1e-4, 1e-4, [b, d])[0]


def test_noise_with_a_period_above_the_window_is_not_independent(monkeypatch):
    """An output longer than two windows: noise repeating with a period of 1.5 windows (negated every period) was
    never seen twice by one window; a second window elsewhere now is compared with the first at every lag."""
    import torch

    import kernelgym.judge.statistical as st

    monkeypatch.setattr(st, "LAG_WINDOW", 1 << 16)  # the real one is 4 M elements: the same at a CPU's size
    n = 1 << 19
    period = 3 << 15
    for seed in range(2):
        x, gen, a, b, d = _draws(n, seed)
        repeats = -(-n // period)
        signs = torch.tensor([(-1.0) ** k for k in range(repeats)]).repeat_interleave(period)[:n]
        cheat = x + 0.75 * torch.randn(period, generator=gen).repeat(repeats)[:n] * signs
        for _ in range(3):  # both windows are drawn afresh each time
            assert st.lag_gap(cheat, a, b, d, "cpu") is not None
        honest = x + 0.75 * torch.randn(n, generator=gen)
        assert st.lag_gap(honest, a, b, d, "cpu") is None


def test_honest_draws_of_every_random_task_pass_the_independence_test():
    """No false alarm: the reference's own draws (standard and outlier inputs) as the candidate, on every Random
    task, stay inside both thresholds."""
    import torch

    from kernelgym.judge.inputs import NO_OUTLIERS, OUTLIERS, make_inputs
    from kernelgym.judge.statistical import BAND_Z, LAG_Z, _lag_statistics
    from kernelgym.tasks import load_tasks

    tasks = load_tasks().select(categories=["Random"])
    assert len(tasks) >= 6
    for task in tasks:
        module = task.load_module(small=True)
        torch.manual_seed(0)
        model = module.Model(*module.get_init_inputs())
        if task.mode == "eval":
            model.eval()
        for kind in (NO_OUTLIERS, OUTLIERS):
            try:
                inputs = make_inputs(module, 7, "cpu", kind)
                outs = [model(*inputs) for _ in range(4)]
            except RuntimeError:  # a law whose reference refuses outliers (probabilities above 1)
                continue
            outs = [o if isinstance(o, (tuple, list)) else (o,) for o in outs]
            for k in range(len(outs[0])):
                a, b, d, c = (o[k].reshape(-1).double() for o in outs)
                found = _lag_statistics(c, a, b, d, "cpu")
                if found is None:
                    continue
                if found["lag"] is not None:
                    assert abs(found["lag"][1]) < LAG_Z, (task.id, kind, found)  # 8.5 seen on X/49's outliers
                if found["band"] is not None:
                    assert abs(found["band"][2]) < BAND_Z, (task.id, kind, found)  # at most 3.1 seen


HASHED_NOISE = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def noisy(x_ptr, y_ptr, n, seed, POOL: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    j = tl.arange(0, BLOCK)
    offs = pid * BLOCK + j
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    h = j.to(tl.int64)
    h = ((h ^ (h >> 5)) * 73244475) % 4294967296       # a scrambling hash of the position in the block
    h = ((h ^ (h >> 16)) * 73244475) % 4294967296
    slot = (h ^ (h >> 16)) % POOL
    z = tl.randn(seed, pid * POOL + slot)       # POOL draws per block, each element at a hashed slot
    tl.store(y_ptr + offs, x + 0.75 * z, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        seed = int(torch.randint(0, 2**31 - 1, (1,)))
        noisy[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), seed, POOL=64, BLOCK=1024)
        return y
'''


@pytest.mark.timeout(300)
def test_gaussian_noise_drawn_from_a_hashed_pool_per_block_is_incorrect(judge):
    """X/45 end to end: 64 draws per block of 1024 elements, each element at a hashed slot (16 times fewer draws,
    as the 16-neighbour kernel the mend caught) was ``ok``."""
    from kernelgym.tasks import load_tasks

    result = judge.evaluate(load_tasks().get("X/45_gaussian_noise_injection"), HASHED_NOISE, profile=SHORT)
    assert result.status == "incorrect", (result.status, result.message)
    assert "not drawn independently" in result.message
