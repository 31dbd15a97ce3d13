"""On the CPU the judge compiles, for a GPU (sm_90), every kernel the interpreter ran in the first forward
(kernelgym/judge/gpu_compile.py): a kernel only the interpreter accepts is a compile_error on the CPU too, as it
would be on any GPU. Real interpreter runs and real compilations (Triton's compiler and ptxas, no GPU)."""

from __future__ import annotations

import torch

from kernelgym.judge import gpu_compile
from kernelgym.testing.candidates import GOOD, candidate
from conftest import SHORT


#: the honest kernel with the loaded value bound only inside a loop and read after it: the interpreter (Python
#: scoping) runs it, the compiler refuses it (the mistake a test kernel of this repository made, feed8d4)
LOOP_SCOPED = GOOD.replace("    x = tl.load(x_ptr + offs, mask=mask)",
                           "    for _ in range(2):\n        x = tl.load(x_ptr + offs, mask=mask)")

#: calls a @jit helper of its own and triton.language's own @jit helpers (tl.cdiv, tl.sigmoid): after the
#: interpreter ran them, triton.language is patched and its helpers are interpreted objects; the compiler must
#: still see them as they were
WITH_HELPERS = candidate(expr="twice(tl.maximum(x, 0.0)) + 1.0 + 0.0 * tl.sigmoid(x) * tl.cdiv(n, BLOCK)",
                         extra="@triton.jit\ndef twice(v):\n    return v * 2.0\n")


def test_a_kernel_only_the_interpreter_accepts_is_a_compile_error_naming_its_line(judge, relu_task):
    assert LOOP_SCOPED != GOOD
    result = judge.evaluate(relu_task, LOOP_SCOPED, profile=SHORT)
    assert result.status == "compile_error", (result.status, result.message)
    assert "does not compile for a GPU (sm_90)" in result.message
    assert "kernel scaled_relu_kernel (candidate.py line" in result.message and "is not defined" in result.message


def test_honest_kernels_with_helpers_compile_after_the_interpreter_ran_them(judge, relu_task):
    for text in (GOOD, WITH_HELPERS):
        result = judge.evaluate(relu_task, text, profile=SHORT)
        assert result.status == "ok", (result.message, result.log_tail[-1500:])


def test_the_check_can_be_turned_off(relu_task, tmp_path, monkeypatch):
    from kernelgym.judge.runner import Judge

    monkeypatch.setenv("KERNELGYM_GPU_COMPILE", "0")
    judge = Judge(device="cpu", cache_dir=tmp_path)
    try:
        assert judge.evaluate(relu_task, LOOP_SCOPED, profile=SHORT).status == "ok"
    finally:
        judge.close()


def test_launches_are_typed_exactly_or_not_at_all():
    from kernelgym.judge import _gpu_compile_sample as sample

    x = torch.empty(8)
    spec = gpu_compile.spec_of(sample.copy_kernel.fn, (x, torch.empty(8, dtype=torch.int64), 8),
                               {"BLOCK": 8, "num_warps": 2, "grid": None})
    assert spec.signature == {"x_ptr": "*fp32", "y_ptr": "*i64", "n": "i32", "SCALE": "constexpr",
                              "BLOCK": "constexpr"}
    assert spec.constexprs == {"SCALE": None, "BLOCK": 8} and spec.options == {"num_warps": 2}
    gpu_compile.compile_spec(spec)  # the compiler takes what was typed
    for odd in (x.as_subclass(type("Sub", (torch.Tensor,), {})), (1, 2), object()):  # never guessed
        assert gpu_compile.spec_of(sample.copy_kernel.fn, (odd, x, 8), {"BLOCK": 8}) is None


def test_at_most_the_limit_of_distinct_launches_is_kept():
    limit = 1
    from kernelgym.judge import _gpu_compile_sample as sample

    class Launcher:
        fn = sample.copy_kernel.fn

    specs = gpu_compile.LaunchSpecs(limit=limit)
    x = torch.empty(8)
    for block in (8, 16, 8):
        specs.note(Launcher, (x, x, 8), {"BLOCK": block})
    specs.note(Launcher, (object(), x, 8), {"BLOCK": 8})
    assert len(specs.specs) == limit and specs.first_error() is None
