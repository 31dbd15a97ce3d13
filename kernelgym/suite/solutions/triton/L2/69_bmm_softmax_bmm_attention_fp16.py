"""Triton: fused attention (flash-attention style) for softmax(Q K^T / sqrt(d)) V in fp16: scores and
probabilities stay on chip, an online softmax in fp32 rescales the running output per key block."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _attn_fwd(q_ptr, k_ptr, v_ptr, o_ptr, S, D, qk_scale,
              BM: tl.constexpr, BN: tl.constexpr, BD: tl.constexpr):
    pid_m = tl.program_id(0)
    bh = tl.program_id(1)
    base = bh.to(tl.int64) * S * D
    rm = pid_m * BM + tl.arange(0, BM)
    rd = tl.arange(0, BD)
    rn0 = tl.arange(0, BN)
    dmask = rd < D
    q = tl.load(q_ptr + base + rm[:, None] * D + rd[None, :], mask=(rm[:, None] < S) & dmask[None, :], other=0.0)
    m_i = tl.full((BM,), -1e30, dtype=tl.float32)
    l_i = tl.zeros((BM,), dtype=tl.float32)
    acc = tl.zeros((BM, BD), dtype=tl.float32)
    for n0 in range(0, S, BN):
        rn = n0 + rn0
        kmask = rn < S
        kt = tl.load(k_ptr + base + rn[None, :] * D + rd[:, None], mask=dmask[:, None] & kmask[None, :], other=0.0)
        s = tl.dot(q, kt) * qk_scale  # log2-domain scores
        s = tl.where(kmask[None, :], s, -1e30)
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + base + rn[:, None] * D + rd[None, :], mask=kmask[:, None] & dmask[None, :], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(o_ptr + base + rm[:, None] * D + rd[None, :], out.to(o_ptr.dtype.element_ty),
             mask=(rm[:, None] < S) & dmask[None, :])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
        BH, S, D = q.shape
        out = torch.empty_like(q)
        BD = max(16, triton.next_power_of_2(D))
        BM, BN = 128, 64
        qk_scale = (D ** -0.5) * 1.4426950408889634
        grid = (triton.cdiv(S, BM), BH)
        _attn_fwd[grid](q, k, v, out, S, D, qk_scale, BM=BM, BN=BN, BD=BD, num_warps=8, num_stages=3)
        return out
