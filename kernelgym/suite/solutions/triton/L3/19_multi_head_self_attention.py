"""Triton solution for L3/19_multi_head_self_attention: tiled tl.dot GEMMs with fused bias for the QKV and output
projections, and a flash-attention kernel (online softmax, no S x S matrix in memory) that reads Q, K, V directly
from the fused QKV buffer and writes heads already merged.

Precision: an fp32 ``tl.dot`` is one TF32 pass by default, while the judge's reference runs fp32 matmuls without
TF32. The softmax turns a score's absolute error into a relative error of its weight, so everything that feeds the
scores uses 3xTF32 (``input_precision="tf32x3"``: each operand split into a TF32 high part and a remainder, three
tensor-core dots, about fp32 accuracy): the Q K^T dot and the Q and K columns of the QKV projection (TF32 error in
Q and K reaches the scores at the size of the dot's own). The V columns, P V (weights in [0, 1], nothing amplifies
its error) and the output projection stay single TF32. The all-TF32 version failed an H200 outlier trial (2 of 6.3 M
elements, 1.12x the tolerance). CPU emulation, not a GPU measurement (TF32 = low 13 mantissa bits dropped, tf32x3 =
Triton's split; the judge's make_inputs and compare_tensor at full size, 3 init seeds x 8 input seeds), worst
error / tolerance over outlier | standard trials: all TF32 0.73 | 0.80; tf32x3 on Q K^T alone 0.46 | 0.51; this
choice 0.072 | 0.108; V columns too 0.047 | 0.100. The emulation's tail runs below the GPU's (it never failed).
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def linear_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K, stride_y, PRECISION: tl.constexpr,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    # y[M, N] = x[M, K] @ w[N, K]^T + b[N]; x, w row-major contiguous, y rows stride_y apart
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
        acc = tl.dot(a, w, acc, input_precision=PRECISION)
    acc = acc + tl.load(b_ptr + offs_n, mask=n_mask, other=0.0)[None, :]
    out_mask = m_mask[:, None] & n_mask[None, :]
    out_off = offs_m[:, None] * stride_y + offs_n[None, :]
    tl.store(y_ptr + out_off, acc, mask=out_mask)


@triton.jit
def attention_kernel(qkv_ptr, o_ptr, S, H, D, DH, qk_scale, QK_PRECISION: tl.constexpr,
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
    for n0 in range(0, S, BLOCK_N):
        offs_n = n0 + tl.arange(0, BLOCK_N)
        n_valid = offs_n < S
        kt = tl.load(base + D + offs_n[None, :] * row_stride + offs_d[:, None],
                     mask=d_mask[:, None] & n_valid[None, :], other=0.0)            # [BLOCK_D, BLOCK_N]
        s = tl.dot(q, kt, input_precision=QK_PRECISION) * qk_scale                     # log2 domain
        s = tl.where(n_valid[None, :], s, -1.0e30)
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(base + 2 * D + offs_n[:, None] * row_stride + offs_d[None, :],
                    mask=n_valid[:, None] & d_mask[None, :], other=0.0)              # [BLOCK_N, BLOCK_D]
        acc = acc * alpha[:, None] + tl.dot(p, v)  # default TF32: weights in [0, 1], error not amplified
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(o_ptr + (b * S + offs_m)[:, None] * D + h * DH + offs_d[None, :], acc,
             mask=m_valid[:, None] & d_mask[None, :])


#: tl.dot input precisions (module docstring): the scores Q K^T, the Q and K columns of the QKV projection, and
#: every other GEMM (V columns, output projection)
QK_PRECISION = "tf32x3"
QK_PROJ_PRECISION = "tf32x3"
PRECISION = "tf32"


def linear_into(y: torch.Tensor, x2d: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, precision: str) -> None:
    """y[:, :] = x2d @ weight^T + bias, where y may be a column slice of a wider row-major buffer."""
    m, k = x2d.shape
    n = weight.shape[0]
    bm, bn, bk = 128, 128, 32
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
    linear_kernel[grid](x2d, weight, bias, y, m, n, k, y.stride(0), PRECISION=precision,
                        BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, num_warps=8, num_stages=3)


def linear(x2d: torch.Tensor, lin: nn.Linear) -> torch.Tensor:
    y = torch.empty((x2d.shape[0], lin.weight.shape[0]), device=x2d.device, dtype=torch.float32)
    linear_into(y, x2d, lin.weight, lin.bias, PRECISION)
    return y


def qkv_projection(x2d: torch.Tensor, lin: nn.Linear, d: int) -> torch.Tensor:
    """The fused [M, 3d] QKV buffer: the Q and K columns at QK_PROJ_PRECISION, the V columns at PRECISION."""
    qkv = torch.empty((x2d.shape[0], 3 * d), device=x2d.device, dtype=torch.float32)
    linear_into(qkv[:, : 2 * d], x2d, lin.weight[: 2 * d], lin.bias[: 2 * d], QK_PROJ_PRECISION)
    linear_into(qkv[:, 2 * d:], x2d, lin.weight[2 * d:], lin.bias[2 * d:], PRECISION)
    return qkv


class ModelNew(nn.Module):
    def __init__(self, d: int, heads: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        nn.init.normal_(self.qkv.weight, std=d ** -0.5)
        nn.init.normal_(self.proj.weight, std=d ** -0.5)
        with torch.no_grad():
            self.qkv.weight[: 2 * d] *= 2.0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        nh = self.heads
        dh = d // nh
        qkv = qkv_projection(x.contiguous().view(b * s, d), self.qkv, d)
        y = torch.empty((b * s, d), device=x.device, dtype=torch.float32)
        block_m, block_n = 64, 64
        attention_kernel[(triton.cdiv(s, block_m), b * nh)](
            qkv, y, s, nh, d, dh, (dh ** -0.5) * 1.4426950408889634, QK_PRECISION=QK_PRECISION,
            BLOCK_M=block_m, BLOCK_N=block_n, BLOCK_D=max(16, triton.next_power_of_2(dh)), num_warps=4, num_stages=2)
        return linear(y, self.proj).view(b, s, d)
