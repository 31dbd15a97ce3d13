"""Triton flash attention (non-causal, fp32 I/O): online softmax over key blocks, no S x S matrix in memory.

Precision: the scores Q K^T use 3xTF32 (``input_precision="tf32x3"``: each fp32 operand split into a TF32 high part
and a TF32 remainder, three tensor-core dots, about fp32 accuracy), not the default single TF32 pass. The softmax
turns a score's absolute error straight into a relative error of its weight, and a score's TF32 error grows with the
score: with outlier inputs (values 10x the input's peak) scores reach hundreds and plain TF32 put 137, then 165 of 8.4 M
outputs outside atol=0.1 rtol=0.01 on the H200 (the CPU interpreter computes every dot in fp32, so it never showed).
P V stays single TF32: the weights are in [0, 1] and nothing amplifies that dot's error (about 0.02 on outlier
inputs and 0.003 on standard ones, against tolerances 0.1 and 0.01, in a CPU emulation of both precisions).
"""
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _flash_attn_fwd(q_ptr, k_ptr, v_ptr, o_ptr, S, qk_scale,
                    D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    bh = tl.program_id(1).to(tl.int64)
    base = bh * S * D
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = tl.arange(0, BN)
    offs_d = tl.arange(0, D)
    m_ok = offs_m < S
    q = tl.load(q_ptr + base + offs_m[:, None] * D + offs_d[None, :], mask=m_ok[:, None], other=0.0)
    m_i = tl.full([BM], float("-inf"), tl.float32)
    l_i = tl.zeros([BM], dtype=tl.float32)
    acc = tl.zeros([BM, D], dtype=tl.float32)
    for start in range(0, S, BN):
        kn = start + offs_n
        n_ok = kn < S
        kt = tl.load(k_ptr + base + kn[None, :] * D + offs_d[:, None], mask=n_ok[None, :], other=0.0)
        # 3xTF32: fp32-accurate scores on tensor cores (module docstring); scaled after the dot, in log2 units
        qk = tl.dot(q, kt, input_precision="tf32x3") * qk_scale
        qk = tl.where(n_ok[None, :], qk, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(qk, axis=1))
        p = tl.exp2(qk - m_new[:, None])
        alpha = tl.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + base + kn[:, None] * D + offs_d[None, :], mask=n_ok[:, None], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p, v)  # default TF32: weights in [0, 1], error not amplified
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(o_ptr + base + offs_m[:, None] * D + offs_d[None, :], acc.to(o_ptr.dtype.element_ty),
             mask=m_ok[:, None])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
        b, h, s, d = q.shape
        assert d >= 16 and (d & (d - 1)) == 0, "head dim must be a power of two >= 16"
        o = torch.empty_like(q)
        qk_scale = 1.4426950408889634 / math.sqrt(d)
        BM, BN = 64, 64
        grid = (triton.cdiv(s, BM), b * h)
        _flash_attn_fwd[grid](q, k, v, o, s, qk_scale, D=d, BM=BM, BN=BN, num_warps=4, num_stages=2)
        return o
