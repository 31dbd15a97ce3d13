"""Small judge parts on their own: autotune bound, interpreter fix, compiler-error summaries, coverage accounting."""

from __future__ import annotations

import os
import subprocess
import sys


def test_autotune_sweeps_are_bounded():
    code = '''
import triton, triton.language as tl
from kernelgym.judge.autotune import bound_autotune
assert bound_autotune(3)
configs = [triton.Config({"B": 2 ** i}) for i in range(4, 14)]
@triton.autotune(configs=configs, key=["n"])
@triton.jit
def k(x, n, B: tl.constexpr):
    pass
print(len(k.configs))
'''
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "TRITON_INTERPRET": "1"})
    assert out.stdout.strip().splitlines()[-1] == "3", out.stderr[-2000:]


def test_bf16_dot_is_fixed_in_the_interpreter():
    code = '''
import torch, triton, triton.language as tl
from kernelgym.judge import interpreter_fixes
interpreter_fixes.apply()
@triton.jit
def mm(a, b, c, N: tl.constexpr):
    r = tl.arange(0, N)
    x = tl.load(a + r[:, None] * N + r[None, :])
    y = tl.load(b + r[:, None] * N + r[None, :])
    tl.store(c + r[:, None] * N + r[None, :], tl.dot(x, y))
a = torch.randn(16, 16).bfloat16(); b = torch.randn(16, 16).bfloat16(); c = torch.empty(16, 16)
mm[(1,)](a, b, c, N=16)
print(float((c - a.float() @ b.float()).abs().max()))
'''
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "TRITON_INTERPRET": "1"})
    assert float(out.stdout.strip().splitlines()[-1]) < 1e-3, out.stderr[-2000:]


def test_compiler_errors_are_cut_to_the_first_relevant_lines():
    from kernelgym.judge.compile import summarize_compiler_errors

    log = "\n".join(["[1/3] /usr/local/cuda/bin/nvcc -c x.cu"] + [f"noise line {i}" for i in range(300)] + [
        "/tmp/x/cuda.cu(12): error: identifier \"blockIdxx\" is undefined", "      int i = blockIdxx.x;",
        "/tmp/x/cuda.cu(14): error: expected a \";\""] + [f"more noise {i}" for i in range(300)])
    summary = summarize_compiler_errors(log)
    assert summary.splitlines()[0].endswith('identifier "blockIdxx" is undefined')
    assert len(summary.splitlines()) <= 10 and "noise line" not in summary


def test_coverage_accounts_kernel_time_by_owner():
    from kernelgym.judge.profile import candidate_kernel_names, coverage_from_events

    names = candidate_kernel_names("import triton\n@triton.jit\ndef my_kernel(x):\n    pass\n"
                                   "src = '__global__ void cuda_k(float* x) {}'\n")
    assert names == ["cuda_k", "my_kernel"]
    report = coverage_from_events([("my_kernel", True, 30.0), ("sm90_xmma_gemm_bf16", True, 70.0),
                                   ("aten::mm", False, 0.0)], names)
    assert report["coverage"] == 0.3 and report["launched"] == ["my_kernel"]
    assert report["aten_compute_ops"] == ["aten::mm"]
    assert report["foreign_kernels"][0]["name"].startswith("sm90_xmma")


def test_seeded_inputs_are_identical_when_judges_share_a_process():
    """Judges in threads of one process (a Ray actor) must each draw the inputs their seed names."""
    import threading
    import time
    import types

    import torch

    from kernelgym.judge.inputs import make_inputs

    def get_inputs():
        out = []
        for _ in range(20):
            out.append(torch.randn(64))
            time.sleep(0.0005)  # give the other thread a chance to draw in between
        return out

    module = types.SimpleNamespace(get_inputs=get_inputs)
    expected = {seed: make_inputs(module, seed, "cpu") for seed in (1, 2)}
    mismatches = []

    def draw(seed):
        for _ in range(5):
            got = make_inputs(module, seed, "cpu")
            mismatches.extend(i for i, (a, b) in enumerate(zip(got, expected[seed])) if not torch.equal(a, b))

    threads = [threading.Thread(target=draw, args=(s,)) for s in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert mismatches == []
