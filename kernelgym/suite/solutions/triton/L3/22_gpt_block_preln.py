"""Triton solution for L3/22_gpt_block_preln: row-wise LayerNorm kernel, tiled tl.dot GEMMs with fused bias /
tanh-GELU / residual-add epilogues, and a causal flash-attention kernel (online softmax) that reads Q, K, V straight
out of the fused QKV projection."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, D, eps, BLOCK_D: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_D)
    mask = offs < D
    x = tl.load(x_ptr + row * D + offs, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / D
    xc = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xc * xc, axis=0) / D
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + row * D + offs, xc * rstd * w + b, mask=mask)


@triton.jit
def linear_kernel(x_ptr, w_ptr, b_ptr, r_ptr, y_ptr, M, N, K,
                  GELU: tl.constexpr, RESIDUAL: tl.constexpr,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    # y[M, N] = epilogue(x[M, K] @ w[N, K]^T + b[N]) (+ r[M, N]); all row-major contiguous
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    group = pid // (GROUP_M * num_n)
    first_m = group * GROUP_M
    group_size = tl.minimum(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % group_size)
    pid_n = (pid % (GROUP_M * num_n)) // group_size
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    m_mask = offs_m < M
    n_mask = offs_n < N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + offs_k
        k_mask = kk < K
        a = tl.load(x_ptr + offs_m[:, None] * K + kk[None, :], mask=m_mask[:, None] & k_mask[None, :], other=0.0)
        w = tl.load(w_ptr + offs_n[None, :] * K + kk[:, None], mask=k_mask[:, None] & n_mask[None, :], other=0.0)
        acc = tl.dot(a, w, acc)
    acc = acc + tl.load(b_ptr + offs_n, mask=n_mask, other=0.0)[None, :]
    if GELU:
        inner = 0.7978845608028654 * (acc + 0.044715 * acc * acc * acc)
        e = tl.exp(-2.0 * tl.abs(inner))
        th = (1.0 - e) / (1.0 + e)
        th = tl.where(inner >= 0, th, -th)
        acc = 0.5 * acc * (1.0 + th)
    out_mask = m_mask[:, None] & n_mask[None, :]
    out_off = offs_m[:, None] * N + offs_n[None, :]
    if RESIDUAL:
        acc = acc + tl.load(r_ptr + out_off, mask=out_mask, other=0.0)
    tl.store(y_ptr + out_off, acc, mask=out_mask)


@triton.jit
def causal_attention_kernel(qkv_ptr, o_ptr, S, H, D, DH, qk_scale,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    # qkv: [B, S, 3D] (q | k | v, head h at columns h*DH..), o: [B, S, D]
    pid_m = tl.program_id(0)
    pid_bh = tl.program_id(1)
    b = pid_bh // H
    h = pid_bh % H
    row_stride = 3 * D
    base = qkv_ptr + b * S * row_stride + h * DH
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, BLOCK_D)
    m_valid = offs_m < S
    d_mask = offs_d < DH
    q = tl.load(base + offs_m[:, None] * row_stride + offs_d[None, :],
                mask=m_valid[:, None] & d_mask[None, :], other=0.0)
    m_i = tl.full((BLOCK_M,), -1.0e30, dtype=tl.float32)
    l_i = tl.zeros((BLOCK_M,), dtype=tl.float32)
    acc = tl.zeros((BLOCK_M, BLOCK_D), dtype=tl.float32)
    hi = tl.minimum(S, (pid_m + 1) * BLOCK_M)
    for n0 in range(0, hi, BLOCK_N):
        offs_n = n0 + tl.arange(0, BLOCK_N)
        n_valid = offs_n < S
        kt = tl.load(base + D + offs_n[None, :] * row_stride + offs_d[:, None],
                     mask=d_mask[:, None] & n_valid[None, :], other=0.0)            # [BLOCK_D, BLOCK_N]
        s = tl.dot(q, kt) * qk_scale                                                   # log2 domain
        keep = n_valid[None, :] & (offs_n[None, :] <= offs_m[:, None])
        s = tl.where(keep, s, -1.0e30)
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(base + 2 * D + offs_n[:, None] * row_stride + offs_d[None, :],
                    mask=n_valid[:, None] & d_mask[None, :], other=0.0)              # [BLOCK_N, BLOCK_D]
        acc = acc * alpha[:, None] + tl.dot(p, v)
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(o_ptr + (b * S + offs_m)[:, None] * D + h * DH + offs_d[None, :], acc,
             mask=m_valid[:, None] & d_mask[None, :])


def layernorm(x2d: torch.Tensor, ln: nn.LayerNorm) -> torch.Tensor:
    m, d = x2d.shape
    y = torch.empty_like(x2d)
    layernorm_kernel[(m,)](x2d, ln.weight, ln.bias, y, d, ln.eps, BLOCK_D=triton.next_power_of_2(d), num_warps=4)
    return y


def linear(x2d: torch.Tensor, lin: nn.Linear, gelu: bool = False, residual: torch.Tensor = None) -> torch.Tensor:
    m, k = x2d.shape
    n = lin.weight.shape[0]
    y = torch.empty((m, n), device=x2d.device, dtype=torch.float32)
    bm, bn, bk = 128, 128, 32
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
    r = residual if residual is not None else y
    linear_kernel[grid](x2d, lin.weight, lin.bias, r, y, m, n, k, GELU=gelu, RESIDUAL=residual is not None,
                        BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, num_warps=8, num_stages=3)
    return y


class ModelNew(nn.Module):
    def __init__(self, d: int, heads: int):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.fc_out = nn.Linear(4 * d, d)
        nn.init.normal_(self.attn.weight, std=d ** -0.5)
        nn.init.normal_(self.proj.weight, std=d ** -0.5)
        with torch.no_grad():
            self.attn.weight[: 2 * d] *= 2.0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        nh = self.heads
        dh = d // nh
        x2 = x.contiguous().view(b * s, d)
        qkv = linear(layernorm(x2, self.ln1), self.attn)
        y = torch.empty((b * s, d), device=x.device, dtype=torch.float32)
        block = 64
        causal_attention_kernel[(triton.cdiv(s, block), b * nh)](
            qkv, y, s, nh, d, dh, (dh ** -0.5) * 1.4426950408889634,
            BLOCK_M=block, BLOCK_N=block, BLOCK_D=max(16, triton.next_power_of_2(dh)), num_warps=4, num_stages=2)
        x1 = linear(y, self.proj, residual=x2)
        f = linear(layernorm(x1, self.ln2), self.fc, gelu=True)
        out = linear(f, self.fc_out, residual=x1)
        return out.view(b, s, d)
