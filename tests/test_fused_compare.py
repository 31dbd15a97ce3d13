"""The fused comparison kernel (kernelgym.judge.fused_compare) against compare_tensor's torch path, on the Triton
interpreter (CPU tensors; on a GPU, tests/gpu/test_fused_compare_gpu.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

#: run in a fresh interpreter process: TRITON_INTERPRET must be set before Triton is imported
SCRIPT = r'''
import json, os, torch
from kernelgym.judge import correctness, fused_compare

real_usable = fused_compare.usable
def usable_here(ref, out, exact=None):  # CPU tensors: the interpreter runs the kernel; every other condition kept
    on_cuda = lambda t: type("OnCuda", (), {"is_cuda": True, "device": ref.device, "dtype": t.dtype,
                                           "is_contiguous": t.is_contiguous})()
    return real_usable(on_cuda(ref), on_cuda(out), None if exact is None else on_cuda(exact))
fused_compare.usable = usable_here
correctness.CHUNK = 3000  # several chunks, each several blocks and a partial one
calls = []
real = fused_compare.chunk_figures
def counted(*args):
    calls.append(1)
    return real(*args)
fused_compare.chunk_figures = counted

def both(ref, out, atol, rtol, exact=None):
    checks = {}
    for flag in ("0", "1"):
        os.environ["KERNELGYM_FUSED_COMPARE"] = flag
        checks[flag] = correctness.compare_tensor(ref, out, atol, rtol, exact=exact).to_dict()
    return checks

g = torch.Generator().manual_seed(0)
n = 10_007
ref = torch.randn(n, generator=g)
cases = {}
cases["within"] = both(ref, ref + 1e-6 * torch.randn(n, generator=g), 1e-4, 1e-4)
bad = ref.clone(); bad[[5, 4000, 9999]] += torch.tensor([0.5, 2.0, -0.7])
cases["beyond"] = both(ref, bad, 1e-4, 1e-4)
ref16 = ref.to(torch.bfloat16).reshape(97, -1) if n % 97 == 0 else ref[:9991].to(torch.bfloat16).reshape(97, 103)
cases["bf16"] = both(ref16, (ref16.float() * 1.01).to(torch.bfloat16), 1e-2, 1e-2)
special = ref.clone(); special[[3, 50, 7000]] = torch.tensor([float("nan"), float("inf"), -float("inf")])
near = special + 1e-6
cases["nonfinite_alike"] = both(special, near, 1e-4, 1e-4)
moved = near.clone(); moved[3], moved[4] = 0.0, float("nan")
cases["nan_moved"] = both(special, moved, 1e-4, 1e-4)
exact = ref.double() + 1e-3  # a reference off by 1e-3, the float64 result where the output is
cases["exact"] = both(ref, exact.float(), 1e-4, 1e-4, exact=exact)
cases["exact_beyond"] = both(ref, exact.float() + 0.1, 1e-4, 1e-4, exact=exact)
half = ref.to(torch.float16)
off_half = half.clone(); off_half[123] += 0.5
cases["fp16"] = both(half, off_half, 1e-3, 1e-3)
double = ref.double()
off_double = double + 1e-9; off_double[9000] -= 1.0
cases["fp64"] = both(double, off_double, 1e-6, 1e-6)
cases["one_element"] = both(ref[:1], ref[:1] + 1.0, 1e-4, 1e-4)
wide = torch.randn(n, 3, generator=g)
strided_ref = wide[:, 1]  # its flat view keeps a stride of 3
strided_out = strided_ref + 1e-6
strided_out[[10, 9000]] += 1.0
cases["strided"] = both(strided_ref, strided_out, 1e-4, 1e-4)
figures = real(ref, bad, None, 1e-4, 1e-4)
broken_before = fused_compare._broken
def no_compiler():
    raise RuntimeError("no compiler here")
fused_compare._kernel, fused_compare._build = None, no_compiler  # a kernel that cannot be built
os.environ["KERNELGYM_FUSED_COMPARE"] = "1"
failed = correctness.compare_tensor(ref, bad, 1e-4, 1e-4).to_dict()
print(json.dumps({"cases": cases, "calls": len(calls), "figures": figures._asdict(), "broken": broken_before,
                  "failed": failed, "broken_after": fused_compare._broken, "enabled_after": fused_compare.enabled()}))
'''


@pytest.fixture(scope="module")
def outcome():
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    proc = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_the_kernel_ran_and_never_failed(outcome):
    assert outcome["broken"] is None
    assert outcome["calls"] >= 7 * 3 + 3  # every case but the strided one went through it, chunk by chunk


@pytest.mark.parametrize("case", ["within", "beyond", "bf16", "nonfinite_alike", "nan_moved", "exact",
                                  "exact_beyond", "strided", "fp16", "fp64", "one_element"])
def test_the_fused_pass_gives_the_torch_paths_verdict_and_figures(outcome, case):
    torch_path, fused = outcome["cases"][case]["0"], outcome["cases"][case]["1"]
    assert fused == torch_path


def test_the_verdicts_are_the_expected_ones(outcome):
    ok = {case: checks["1"]["ok"] for case, checks in outcome["cases"].items()}
    assert ok == {"within": True, "beyond": False, "bf16": True, "nonfinite_alike": True, "nan_moved": False,
                  "exact": True, "exact_beyond": False, "strided": False, "fp16": False, "fp64": False,
                  "one_element": False}
    assert "2 of 10007 elements outside" in outcome["cases"]["strided"]["1"]["reason"]
    assert "3 of 10007 elements outside" in outcome["cases"]["beyond"]["1"]["reason"]
    assert "NaN positions differ" in outcome["cases"]["nan_moved"]["1"]["reason"]


def test_a_chunks_figures(outcome):
    figures = outcome["figures"]  # the whole of "beyond" in one call: 3 elements out, the worst the +2.0
    assert not figures["nonfinite_mismatch"] and figures["n_bad"] == 3 and figures["worst"] == 4000
    assert figures["max_abs"] == pytest.approx(2.0, rel=1e-6) and figures["max_excess"] > 1.9


def test_a_kernel_that_fails_leaves_the_torch_path_to_answer_and_stays_off(outcome):
    assert outcome["failed"] == outcome["cases"]["beyond"]["0"]  # the torch path's verdict, figures and message
    assert "no compiler here" in outcome["broken_after"] and outcome["enabled_after"] is False
