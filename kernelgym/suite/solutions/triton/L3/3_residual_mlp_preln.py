"""Triton solution for L3/3_residual_mlp_preln: per block, a row-wise LayerNorm kernel, a tl.dot GEMM with fused
bias + exact (erf) GELU, and a second GEMM with fused bias + residual add; a final LayerNorm kernel."""
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
        acc = 0.5 * acc * (1.0 + tl.erf(acc * 0.7071067811865476))
    out_mask = m_mask[:, None] & n_mask[None, :]
    out_off = offs_m[:, None] * N + offs_n[None, :]
    if RESIDUAL:
        acc = acc + tl.load(r_ptr + out_off, mask=out_mask, other=0.0)
    tl.store(y_ptr + out_off, acc, mask=out_mask)


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


class ResidualBlock(nn.Module):
    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)
        self.act = nn.GELU()

    def forward(self, x2d):
        h = linear(layernorm(x2d, self.norm), self.fc1, gelu=True)
        return linear(h, self.fc2, residual=x2d)


class ModelNew(nn.Module):
    def __init__(self, dim: int, expansion: int, blocks: int):
        super().__init__()
        self.blocks = nn.ModuleList(ResidualBlock(dim, expansion * dim) for _ in range(blocks))
        self.norm = nn.LayerNorm(dim)
        # the norms' weights and biases off their defaults (1, 0), as in the task's model
        for norm in [block.norm for block in self.blocks] + [self.norm]:
            nn.init.uniform_(norm.weight, 0.5, 1.5)
            nn.init.uniform_(norm.bias, -0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        for block in self.blocks:
            x = block(x)
        return layernorm(x, self.norm)
