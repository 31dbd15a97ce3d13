"""The fused comparison kernel (kernelgym.judge.fused_compare) on a real GPU: compare_tensor gives the torch path's
verdict and figures with it, on outputs of several chunks (each path's seconds printed: a figure, not a test).
Skipped without CUDA."""

from __future__ import annotations

import time

import pytest
import torch

from kernelgym.judge import correctness, fused_compare

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")]


def both(monkeypatch, ref, out, atol, rtol, exact=None) -> tuple[dict, dict, float, float]:
    """compare_tensor's result and seconds with the torch path, then with the kernel."""
    results, seconds = [], []
    for flag in ("0", "1"):
        monkeypatch.setenv("KERNELGYM_FUSED_COMPARE", flag)
        correctness.compare_tensor(ref, out, atol, rtol, exact=exact)  # warm: the kernel's compile
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        results.append(correctness.compare_tensor(ref, out, atol, rtol, exact=exact).to_dict())
        seconds.append(time.perf_counter() - t0)
    assert fused_compare._broken is None
    return results[0], results[1], seconds[0], seconds[1]


def same(torch_path: dict, fused: dict) -> None:
    assert (fused["ok"], fused["reason"], fused["output"]) == (torch_path["ok"], torch_path["reason"],
                                                               torch_path["output"])
    assert fused["max_abs_err"] == pytest.approx(torch_path["max_abs_err"], rel=1e-12)
    assert fused["max_rel_err"] == pytest.approx(torch_path["max_rel_err"], rel=1e-12)
    if not torch_path["ok"]:
        assert fused["worst_index"] == torch_path["worst_index"]


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_the_kernel_gives_the_torch_paths_verdict_on_several_chunks(monkeypatch, dtype):
    g = torch.Generator(device="cuda").manual_seed(1)
    n = 3 * correctness.CHUNK + 12345
    ref = torch.randn(n, generator=g, device="cuda").to(dtype)
    close = (ref.double() * (1 + 1e-4)).to(dtype)
    assert fused_compare.usable(ref, close)
    torch_path, fused, slow, fast = both(monkeypatch, ref, close, 1e-2, 1e-2)
    same(torch_path, fused)
    assert fused["ok"]
    bad = close.clone()
    bad[[7, correctness.CHUNK + 3, n - 1]] += 3.0
    bad[2 * correctness.CHUNK + 9] = float("nan")
    torch_path, fused, _, _ = both(monkeypatch, ref, bad, 1e-2, 1e-2)
    same(torch_path, fused)
    assert "NaN positions differ" in fused["reason"]
    bad[2 * correctness.CHUNK + 9] = ref[2 * correctness.CHUNK + 9]
    torch_path, fused, _, _ = both(monkeypatch, ref, bad, 1e-2, 1e-2)
    same(torch_path, fused)
    assert "3 of" in fused["reason"]
    print(f"{dtype}: {n} elements, torch path {slow * 1e3:.1f} ms, kernel {fast * 1e3:.1f} ms")  # a figure, no test


def test_the_kernel_takes_the_float64_result_as_the_torch_path_does(monkeypatch):
    g = torch.Generator(device="cuda").manual_seed(2)
    ref = torch.randn(5_000_000, generator=g, device="cuda")
    exact = ref.double() + 1e-3
    torch_path, fused, _, _ = both(monkeypatch, ref, exact.float(), 1e-4, 1e-4, exact=exact)
    same(torch_path, fused)
    assert fused["ok"]
    torch_path, fused, _, _ = both(monkeypatch, ref, exact.float() + 0.1, 1e-4, 1e-4, exact=exact)
    same(torch_path, fused)
    assert not fused["ok"]


def test_a_strided_flat_view_takes_the_torch_path_with_the_same_verdict(monkeypatch):
    wide = torch.randn(1_000_000, 3, device="cuda")
    ref = wide[:, 1].reshape(-1)  # a flat view that keeps its stride of 3
    out = ref + 1e-6
    out[[10, 999_000]] += 1.0
    assert not fused_compare.usable(ref, out)
    torch_path, fused, _, _ = both(monkeypatch, ref, out, 1e-4, 1e-4)
    same(torch_path, fused)
    assert "2 of 1000000 elements outside" in fused["reason"]
