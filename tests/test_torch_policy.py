"""The torch-use policy (kernelgym.judge.policy): torch may do part of the work under ``partial`` (the default),
none under ``strict``; the candidate's own kernels must run under both; ``off`` keeps only the hard rules."""

from __future__ import annotations

import pytest

from kernelgym.judge.guards import check_source
from kernelgym.judge.profiles import get_profile
from kernelgym.testing.candidates import EXPLOITS, indent, kernel_forward

SHORT = get_profile("quick").with_overrides(compile_timeout_s=60, cpu_correctness_timeout_s=60)

#: torch computes relu, the candidate's own Triton kernel the epilogue (the shape of a conv + fused epilogue)
TORCH_THEN_OWN_EPILOGUE = kernel_forward(indent('''
r = torch.relu(x).contiguous()
y = torch.empty_like(r)
epilogue[(triton.cdiv(r.numel(), 256),)](r, y, r.numel(), BLOCK=256)
return y'''), extra='''
@triton.jit
def epilogue(r_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(r_ptr + offs, mask=mask) * 2.0 + 1.0, mask=mask)''')
#: the candidate defines a kernel but torch does all the work
OWN_KERNEL_NEVER_RUNS = EXPLOITS["kernel_never_launched"][1]


@pytest.mark.parametrize("policy, status", [("strict", "rejected"), ("partial", "ok"), ("off", "ok")])
def test_torch_doing_part_of_the_work_depends_on_the_policy(judge, relu_task, policy, status):
    result = judge.evaluate(relu_task, TORCH_THEN_OWN_EPILOGUE, profile=SHORT, torch_policy=policy)
    assert result.status == status, (result.message, result.log_tail[-500:])
    assert result.torch_policy == policy
    if status == "rejected":
        assert result.flags[0]["name"] == "torch_fallback"


@pytest.mark.parametrize("policy, status", [("strict", "rejected"), ("partial", "rejected"), ("off", "ok")])
def test_a_candidate_whose_own_kernel_never_runs_is_rejected_unless_the_policy_is_off(judge, relu_task, policy,
                                                                                       status):
    result = judge.evaluate(relu_task, OWN_KERNEL_NEVER_RUNS, profile=SHORT, torch_policy=policy)
    assert result.status == status, result.message
    if status == "rejected":
        assert "no_custom_kernel" in {f["name"] for f in result.flags}


def test_an_unknown_policy_is_a_clear_error(judge, relu_task):
    with pytest.raises(ValueError, match="strict, partial, off"):
        judge.evaluate(relu_task, TORCH_THEN_OWN_EPILOGUE, torch_policy="lenient")


CUDA_WITH_CUBLAS = '''
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline
src = """
#include <cublas_v2.h>
__global__ void k(float* y) {}
torch::Tensor f(torch::Tensor x) { if (!x.is_cuda()) { throw std::runtime_error("x"); } cublasCreate(nullptr); return x; }
"""
ext = load_inline(name="m", cpp_sources="torch::Tensor f(torch::Tensor x);", cuda_sources=src, functions=["f"])
class ModelNew(nn.Module):
    def forward(self, x):
        return ext.f(x)
'''


def test_library_compute_in_cuda_source_is_a_torch_fallback_under_strict_only():
    assert {n for n, _ in check_source(CUDA_WITH_CUBLAS, "cuda", "strict")} == {"torch_fallback"}
    assert check_source(CUDA_WITH_CUBLAS, "cuda", "partial") == []
    assert check_source(CUDA_WITH_CUBLAS, "cuda", "off") == []


def test_library_compute_as_a_method_through_at_ops_or_split_over_strings_is_a_torch_fallback_under_strict():
    """An eighteenth red-team helper passed the rule under ``strict`` with a tensor method (``x.matmul(x)``),
    ``at::_ops::mm::call`` and a name split over Python strings joined at run time; each is flagged now. A
    method of the same name that is not compute (``x.clone()``) is not."""
    for call in ("x.matmul(x)", "(x + 1).mm(x)", "at::_ops::mm::call(x, x)", "x.conv2d(x)"):
        text = CUDA_WITH_CUBLAS.replace("cublasCreate(nullptr); return x;", f"return {call};")
        assert {n for n, _ in check_source(text, "cuda", "strict")} == {"torch_fallback"}, call
        assert check_source(text, "cuda", "partial") == [], call
    split = CUDA_WITH_CUBLAS.replace('cublasCreate(nullptr); return x; }\n"""',
                                     'cub""" + """lasCreate(nullptr); return x; }\n"""')
    assert split != CUDA_WITH_CUBLAS and "cublasCreate" not in split
    assert {n for n, _ in check_source(split, "cuda", "strict")} == {"torch_fallback"}
    cloning = CUDA_WITH_CUBLAS.replace("cublasCreate(nullptr); return x;", "return x.clone();")
    assert check_source(cloning, "cuda", "strict") == []


def test_host_code_may_not_reach_functions_by_name_or_start_processes_any_way():
    """``dlsym`` reached any library function by a string, and ``vfork``/``posix_spawn``/``execveat``/``syscall``
    passed the rule beside ``fork``/``system`` (an eighteenth red-team helper)."""
    for call in ('dlsym(nullptr, "cublasCreate_v2");', "vfork();", "posix_spawn(0, 0, 0, 0, 0, 0);",
                 "execveat(0, 0, 0, 0, 0);", "syscall(57);", 'dlmopen(0, "x", 2);'):
        text = CUDA_WITH_CUBLAS.replace("cublasCreate(nullptr);", call)
        for policy in ("strict", "partial", "off"):
            assert {n for n, _ in check_source(text, "cuda", policy)} == {"forbidden_cuda"}, (call, policy)


def test_host_code_may_raise_and_exit_but_never_spawn():
    raising = CUDA_WITH_CUBLAS.replace("cublasCreate(nullptr);", "if (x.numel() == 0) exit(1);")
    assert check_source(raising, "cuda", "strict") == []
    spawning = CUDA_WITH_CUBLAS.replace("cublasCreate(nullptr);", 'system("sleep 1");')
    for policy in ("strict", "partial", "off"):
        assert {n for n, _ in check_source(spawning, "cuda", policy)} == {"forbidden_cuda"}
