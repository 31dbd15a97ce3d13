"""Honest candidates that exercise the newest defences stay ``ok`` (false-alarm hunt, QA round 4).

A fourth round after ``tests/test_honest_variety.py``, ``_2`` and ``_3``, aimed at what rounds 42-44 added: inputs
nested in lists and tuples (round 44: every tensor at any depth is sampled, compared, alias-checked and scrubbed),
the per-call seed protocol and its counted wait, and the order of a timed call's scrub and seal (round 43); and at
forwards that return several outputs in less common containers. Candidates: on three small tasks of this file whose
``get_inputs()`` nests tensors (a list of three, a tuple pair beside a tensor, ``[x, [y, z]]``) forwards that
iterate over the list, unpack it, flatten it with a recursive generator, rebind or ``pop`` its items, rebuild a tuple
as a list, or ``torch.stack`` it; on X/26 outputs returned as a ``collections.namedtuple`` and as a
``typing.NamedTuple``; on L1/21 an output buffer kept on the module and returned by every call.

Each is judged on the CPU (Triton's interpreter) at the task's small shapes, static checks on, under ``partial``
and ``strict``. One false alarm found and mended: a named tuple of outputs was ``incorrect`` ("expected 2
output(s), got 1") under both policies, in the timed calls alone: the trials read outputs with
``inputs.as_tuple`` (any tuple or list), the timed calls with an exact-type test. Both now read them through
``inputs.as_tuple``, which opens a subclass by the base type's own slicing (no method of the subclass runs). Kept by
design: ``torch.stack`` of the list under ``strict`` (``torch_fallback``, the copy rule). Not false alarms: a CUDA
candidate on a judge without a GPU is ``unsupported`` (the judge's clear refusal, after the static checks passed);
``torch.cuda.synchronize()`` called unguarded in a forward is a ``runtime_error`` on the CPU judge (torch's own
"Torch not compiled with CUDA enabled"). docs/SECURITY.md, "False alarms, round 4 (honest variety)".
"""

from __future__ import annotations

import collections

import pytest
import torch

from kernelgym.judge.guards import check_source
from kernelgym.judge.inputs import as_tuple
from kernelgym.testing.honest import PROFILE, Candidate, FalseAlarm, candidate_params, expect, \
    is_static

# ---- tasks of this file whose inputs are nested (no bundled task has one) ----

LIST_TASK = '''"""A learned weighted sum of a list of three same-shaped fp32 tensors."""
import torch
import torch.nn as nn

KERNELGYM = {"category": "Math", "dtype": "float32", "flops": "2 * K * B * D", "bytes": "4 * (K + 1) * B * D",
             "small": {"B": 33, "D": 70}}

B = 33
D = 70
K = 3


class Model(nn.Module):
    def __init__(self, k: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(k))

    def forward(self, tensors):
        out = self.weight[0] * tensors[0]
        for i in range(1, len(tensors)):
            out = out + self.weight[i] * tensors[i]
        return out


def get_inputs():
    return [[torch.randn(B, D) for _ in range(K)]]


def get_init_inputs():
    return [K]
'''

PAIR_TASK = '''"""A pair given as a tuple, and a per-row scale: returns (x * s + y, x - y)."""
import torch
import torch.nn as nn

KERNELGYM = {"category": "Math", "dtype": "float32", "flops": "3 * B * D", "bytes": "4 * 4 * B * D",
             "small": {"B": 17, "D": 45}}

B = 17
D = 45


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, pair, s):
        x, y = pair
        return x * s + y, x - y


def get_inputs():
    return [(torch.randn(B, D), torch.randn(B, D)), torch.randn(B, 1)]


def get_init_inputs():
    return []
'''

DEEP_TASK = '''"""Inputs nested two deep, [x, [y, z]]: returns x * y + z."""
import torch
import torch.nn as nn

KERNELGYM = {"category": "Math", "dtype": "float32", "flops": "2 * N", "bytes": "4 * 4 * N", "small": {"N": 999}}

N = 999


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, items):
        x, (y, z) = items
        return x * y + z


def get_inputs():
    return [[torch.randn(N), [torch.randn(N), torch.randn(N)]]]


def get_init_inputs():
    return []
'''

#: this file's tasks: id -> (file name, source)
OWN_TASKS = {"L1/1_list_weighted_sum": ("1_list_weighted_sum", LIST_TASK),
             "L1/2_tuple_pair": ("2_tuple_pair", PAIR_TASK),
             "L1/3_deep_nested": ("3_deep_nested", DEEP_TASK)}

#: the refusal kept by design
COPIES = FalseAlarm("torch_fallback", "torch's copies",
                    "session (strict: torch's copies wrote more than the outputs' bytes; the data movement must be "
                    "the candidate's own kernels)")

HEAD = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl
'''

#: a weighted accumulation into the output, one launch per input tensor
AXPY = '''

@triton.jit
def axpy_kernel(x_ptr, w_ptr, idx, out_ptr, n, FIRST: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    w = tl.load(w_ptr + idx)
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    if FIRST:
        acc = w * x
    else:
        acc = tl.load(out_ptr + offs, mask=m, other=0.0) + w * x
    tl.store(out_ptr + offs, acc, mask=m)


class ModelNew(nn.Module):
    def __init__(self, k: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(k))

'''

#: two outputs of a pair in one launch
PAIR = '''

@triton.jit
def pair_kernel(x_ptr, y_ptr, s_ptr, o1_ptr, o2_ptr, n, D, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    s = tl.load(s_ptr + offs // D, mask=m)
    tl.store(o1_ptr + offs, x * s + y, mask=m)
    tl.store(o2_ptr + offs, x - y, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

'''

#: a stable row sort by rank (X/26), two outputs
SORT = '''

@triton.jit
def rank_sort_kernel(x_ptr, v_ptr, i_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(x_ptr + row * N + offs, mask=m, other=float("inf"))
    before = (x[None, :] < x[:, None]) | ((x[None, :] == x[:, None]) & (offs[None, :] < offs[:, None]))
    rank = tl.sum((before & m[None, :]).to(tl.int32), 1)
    tl.store(v_ptr + row * N + rank, x, mask=m)
    tl.store(i_ptr + row * N + rank, offs.to(tl.int64), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor):
        x = x.contiguous()
        rows, n = x.shape
        values = torch.empty_like(x)
        indices = torch.empty((rows, n), dtype=torch.int64, device=x.device)
        rank_sort_kernel[(rows,)](x, values, indices, n, BLOCK=triton.next_power_of_2(n))
        return {result}
'''

CANDIDATES: dict[str, Candidate] = {
    # ---- the false alarm mended: a named tuple of outputs ----
    'sort_collections_namedtuple': Candidate('X/26_sort_rows_stable_with_indices', None, None, text=(
        'import collections\n' + HEAD + '\nSortResult = collections.namedtuple("SortResult", ["values", "indices"])\n'
        + SORT.format(result="SortResult(values, indices)"))),
    'sort_typing_namedtuple': Candidate('X/26_sort_rows_stable_with_indices', None, None, text=(
        'from typing import NamedTuple\n' + HEAD + '\n\nclass SortOutput(NamedTuple):\n    values: torch.Tensor\n'
        '    indices: torch.Tensor\n' + SORT.format(result="SortOutput(values=values, indices=indices)"))),
    # ---- nested inputs (round 44) with the static checks on ----
    'list_accumulate_per_tensor': Candidate('L1/1_list_weighted_sum', None, None, text=HEAD + AXPY + '''
    def forward(self, tensors):
        tensors = [t.contiguous() for t in tensors]
        out = torch.empty_like(tensors[0])
        n = out.numel()
        grid = (triton.cdiv(n, 512),)
        for i, t in enumerate(tensors):
            axpy_kernel[grid](t, self.weight, i, out, n, FIRST=(i == 0), BLOCK=512)
        return out
'''),
    # the caller's list rebound item by item to flattened views (the container changes, no tensor's data)
    'list_items_rebound_in_place': Candidate('L1/1_list_weighted_sum', None, None, text=HEAD + AXPY + '''
    def forward(self, tensors):
        shape = tensors[0].shape
        for i in range(len(tensors)):
            tensors[i] = tensors[i].contiguous().view(-1)
        out = torch.empty_like(tensors[0])
        n = out.numel()
        for i, t in enumerate(tensors):
            axpy_kernel[(triton.cdiv(n, 512),)](t, self.weight, i, out, n, FIRST=(i == 0), BLOCK=512)
        return out.view(shape)
'''),
    # the caller's list emptied as it is consumed
    'list_popped_while_consumed': Candidate('L1/1_list_weighted_sum', None, None, text=HEAD + AXPY + '''
    def forward(self, tensors):
        out = torch.empty_like(tensors[0])
        n = out.numel()
        i = 0
        while tensors:
            t = tensors.pop(0).contiguous()
            axpy_kernel[(triton.cdiv(n, 512),)](t, self.weight, i, out, n, FIRST=(i == 0), BLOCK=512)
            i += 1
        return out
'''),
    'list_stacked_then_one_kernel': Candidate('L1/1_list_weighted_sum', None, COPIES, text=HEAD + '''

@triton.jit
def wsum_kernel(x_ptr, w_ptr, out_ptr, n, K: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for k in tl.static_range(K):
        acc += tl.load(w_ptr + k) * tl.load(x_ptr + k * n + offs, mask=m, other=0.0)
    tl.store(out_ptr + offs, acc, mask=m)


class ModelNew(nn.Module):
    def __init__(self, k: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(k))

    def forward(self, tensors):
        stacked = torch.stack(tensors)
        out = torch.empty_like(tensors[0])
        n = out.numel()
        wsum_kernel[(triton.cdiv(n, 512),)](stacked, self.weight, out, n, K=len(tensors), BLOCK=512)
        return out
'''),
    # a tuple input unpacked by a generator; outputs allocated as a tuple before the launch
    'pair_unpacked_tuple_outputs': Candidate('L1/2_tuple_pair', None, None, text=HEAD + PAIR + '''
    def forward(self, pair, s):
        x, y = (t.contiguous() for t in pair)
        out = (torch.empty_like(x), torch.empty_like(x))
        n = x.numel()
        pair_kernel[(triton.cdiv(n, 256),)](x, y, s.contiguous(), out[0], out[1], n, x.shape[-1], BLOCK=256)
        return out
'''),
    # a tuple input rebuilt as a list and patched; the outputs returned as a list
    'pair_rebuilt_as_list': Candidate('L1/2_tuple_pair', None, None, text=HEAD + PAIR + '''
    def forward(self, pair, s):
        pair = list(pair)
        for i, t in enumerate(pair):
            if not t.is_contiguous():
                pair[i] = t.contiguous()
        x, y = pair
        o1, o2 = torch.empty_like(x), torch.empty_like(x)
        n = x.numel()
        if n == 0:
            return o1, o2
        pair_kernel[(triton.cdiv(n, 256),)](x, y, s.contiguous(), o1, o2, n, x.shape[-1], BLOCK=256)
        return [o1, o2]
'''),
    'deep_flattened_by_a_generator': Candidate('L1/3_deep_nested', None, None, text=HEAD + '''

@triton.jit
def fma_kernel(x_ptr, y_ptr, z_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    z = tl.load(z_ptr + offs, mask=m)
    tl.store(o_ptr + offs, x * y + z, mask=m)


def _flatten(items):
    for item in items:
        if isinstance(item, (list, tuple)):
            yield from _flatten(item)
        else:
            yield item


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, items):
        x, y, z = list(_flatten(items))
        out = torch.empty_like(x)
        n = x.numel()
        fma_kernel[(triton.cdiv(n, 256),)](x, y, z, out, n, BLOCK=256)
        return out
'''),
    # ---- an output buffer kept on the module and returned by every call (scrubbed before the seal: round 43) ----
    'silu_output_buffer_kept': Candidate('L1/21_silu_fp16', None, None, text=HEAD + '''

@triton.jit
def silu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, (x / (1.0 + tl.exp(-x))).to(tl.float16), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self._out = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self._out is None or self._out.shape != x.shape:
            self._out = torch.empty_like(x)
        y = self._out
        n = x.numel()
        silu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y
'''),
}

#: the judge runs kept in the quick suite (``-m "not slow"``): the mended false alarm and two nested-input runs
QUICK_RUNS = {"sort_collections_namedtuple", "list_items_rebound_in_place", "deep_flattened_by_a_generator"}


def _params(static_only: bool):
    return candidate_params(CANDIDATES, QUICK_RUNS, static_only)


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    """The bundled tasks and this file's, by id."""
    from kernelgym.tasks import load_tasks
    from kernelgym.testing.candidates import write_task

    bundled = load_tasks()
    folder = tmp_path_factory.mktemp("tasks")
    own = {tid: write_task(folder, name, text) for tid, (name, text) in OWN_TASKS.items()}
    return lambda tid: own.get(tid) or bundled.get(tid)


@pytest.mark.parametrize("name, policy", _params(static_only=True))
def test_honest_candidate_passes_the_static_checks(name, policy):
    cand = CANDIDATES[name]
    alarm = getattr(cand, policy)
    flags = check_source(cand.text, "triton", policy)
    expect(flags, not flags, alarm if is_static(alarm) else None, f"{name} ({cand.task}, {policy}, static)")


@pytest.mark.parametrize("name, policy", _params(static_only=False))
def test_honest_candidate_is_ok_on_the_cpu_judge(judge, tasks, name, policy):
    cand = CANDIDATES[name]
    result = judge.evaluate(tasks(cand.task), cand.text, profile=PROFILE, torch_policy=policy)
    flags = [(f["name"], f.get("reason") or "") for f in result.flags]
    if result.status != "ok" and not flags:
        flags = [(result.status, result.message)]
    expect(flags, result.status == "ok", getattr(cand, policy),
           f"{name} ({cand.task}, {policy}): {result.status}: {result.message[:300]}")


# ---- the mend: every reader of outputs opens a tuple's or list's subclass, without running its code ----

class _Guarded(tuple):
    """A tuple whose own iteration, indexing and length raise: reading it through them would run this code."""

    def __iter__(self):
        raise AssertionError("the subclass's __iter__ ran")

    def __getitem__(self, index):
        raise AssertionError("the subclass's __getitem__ ran")

    def __len__(self):
        raise AssertionError("the subclass's __len__ ran")


class _GuardedList(list):
    def __iter__(self):
        raise AssertionError("the subclass's __iter__ ran")


def test_outputs_in_a_subclass_of_tuple_or_list_are_opened_without_its_code():
    a, b = torch.ones(2), torch.zeros(3)
    pair = collections.namedtuple("Pair", "a b")
    for result in ((a, b), [a, b], pair(a, b), _Guarded((a, b)), _GuardedList([a, b]), torch.sort(b)):
        opened = as_tuple(result)
        assert type(opened) is tuple and len(opened) == 2, result
    assert as_tuple(_Guarded((a, b)))[0] is a and as_tuple(a) == (a,)


def test_a_timed_call_reads_a_named_tuple_of_outputs_as_the_trials_do():
    """The mended false alarm at the timer: a named tuple's two outputs are two snapshots (one before), copies, and
    its subclass's methods do not run after the call's interval."""
    from kernelgym.judge.timing import CallTimer

    pair = collections.namedtuple("Pair", "doubled negated")
    for make in (lambda x: pair(2 * x, -x), lambda x: _Guarded((2 * x, -x))):
        snapshots: list = []
        CallTimer(make, lambda i: [torch.ones(3)], "cpu", scrub_released=True).time_block(2, snapshots)
        assert [len(s) for s in snapshots] == [2, 2]
        assert all(type(o) is torch.Tensor for s in snapshots for o in s)
        assert torch.equal(snapshots[0][0], torch.full((3,), 2.0)) and torch.equal(snapshots[0][1], -torch.ones(3))


# ---- not false alarms: what the CPU judge cannot run, said plainly ----

CUDA_LION = r'''
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <c10/cuda/CUDAStream.h>
#include <vector>

__global__ void lion_kernel(const float* __restrict__ p, const float* __restrict__ g, const float* __restrict__ m,
                            float* __restrict__ p_out, float* __restrict__ m_out, int64_t n,
                            float lr, float wd, float b1, float b2) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float c = b1 * m[i] + (1.f - b1) * g[i];
    float s = (c > 0.f) - (c < 0.f);
    p_out[i] = p[i] * (1.f - lr * wd) - lr * s;
    m_out[i] = b2 * m[i] + (1.f - b2) * g[i];
}

std::vector<torch::Tensor> lion_step(torch::Tensor p, torch::Tensor g, torch::Tensor m,
                                     double lr, double wd, double b1, double b2) {
    TORCH_CHECK(p.is_cuda(), "p must be a CUDA tensor");
    auto p_out = torch::empty_like(p);
    auto m_out = torch::empty_like(m);
    int64_t n = p.numel();
    const int threads = 256;
    const int blocks = (int)((n + threads - 1) / threads);
    auto stream = at::cuda::getCurrentCUDAStream();
    lion_kernel<<<blocks, threads, 0, stream>>>(p.data_ptr<float>(), g.data_ptr<float>(), m.data_ptr<float>(),
        p_out.data_ptr<float>(), m_out.data_ptr<float>(), n, (float)lr, (float)wd, (float)b1, (float)b2);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return {p_out, m_out};
}
"""

cpp_src = "std::vector<torch::Tensor> lion_step(torch::Tensor p, torch::Tensor g, torch::Tensor m, double lr, " \
          "double wd, double b1, double b2);"

lion_ext = load_inline(name="lion_ext", cpp_sources=cpp_src, cuda_sources=cuda_src, functions=["lion_step"],
                       verbose=False, extra_cuda_cflags=["-O3", "--use_fast_math"])


class ModelNew(nn.Module):
    def __init__(self, lr: float, beta1: float, beta2: float, weight_decay: float):
        super().__init__()
        self.lr, self.beta1, self.beta2, self.weight_decay = lr, beta1, beta2, weight_decay

    def forward(self, param, grad, exp_avg):
        p_out, m_out = lion_ext.lion_step(param.contiguous(), grad.contiguous(), exp_avg.contiguous(),
                                          self.lr, self.weight_decay, self.beta1, self.beta2)
        return p_out, m_out
'''


def test_a_cuda_candidate_on_a_judge_without_a_gpu_is_unsupported_not_a_cheat(judge, tasks):
    """A ``load_inline`` candidate with a vector of two outputs, the current stream read in C++ and a launch check
    passes the static checks under both policies; the CPU judge says it cannot run CUDA (``unsupported``), with no
    flag."""
    for policy in ("partial", "strict"):
        assert check_source(CUDA_LION, "cuda", policy) == [], policy
    result = judge.evaluate(tasks("X/15_lion_step"), CUDA_LION, backend="cuda", profile=PROFILE)
    assert result.status == "unsupported" and not result.flags, (result.status, result.message, result.flags)
    assert "CUDA candidates cannot run on this device" in result.message


def test_cuda_synchronize_in_a_forward_is_torchs_error_on_the_cpu_judge(judge, tasks):
    """``torch.cuda.synchronize()`` called unguarded after a launch (harmless on a GPU) fails on the CPU judge with
    torch's own message, a ``runtime_error`` and no flag: a limit of judging on the CPU, not a cheat verdict (a
    forward that guards it with ``if x.is_cuda`` passes, ``tests/test_honest_variety_3.py``)."""
    text = CANDIDATES["silu_output_buffer_kept"].text.replace(
        "        return y\n", "        torch.cuda.synchronize()\n        return y\n")
    assert check_source(text, "triton", "strict") == []
    result = judge.evaluate(tasks("L1/21_silu_fp16"), text, profile=PROFILE)
    assert result.status == "runtime_error" and not result.flags, (result.status, result.message, result.flags)
    assert "Torch not compiled with CUDA enabled" in result.message
