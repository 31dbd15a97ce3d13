"""Triton W4A16 GEMM: unpacks 4-bit weights in registers (nibble select per K row), applies group scale/zero, fp16 tl.dot with fp32 accumulation."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _w4a16_kernel(x_ptr, qw_ptr, s_ptr, z_ptr, out_ptr, M, N, K, G,
                  stride_xm, stride_xk, stride_qk, stride_qn, stride_sg, stride_sn, stride_zg, stride_zn,
                  stride_om, stride_on,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = tl.minimum(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + (pid % num_pid_in_group) % group_size_m
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    m_mask = offs_m < M
    n_mask = offs_n < N
    shift = ((offs_k % 2) * 4).to(tl.uint8)                       # even k: low nibble, odd k: high nibble
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + offs_k
        k_mask = kk < K
        x = tl.load(x_ptr + offs_m[:, None] * stride_xm + kk[None, :] * stride_xk,
                    mask=m_mask[:, None] & k_mask[None, :], other=0.0)
        packed = tl.load(qw_ptr + (kk // 2)[:, None] * stride_qk + offs_n[None, :] * stride_qn,
                         mask=k_mask[:, None] & n_mask[None, :], other=0)
        q = ((packed >> shift[:, None]) & 0xF).to(tl.int32)
        g = k0 // G                                                # BLOCK_K divides G: one group per tile
        s = tl.load(s_ptr + g * stride_sg + offs_n * stride_sn, mask=n_mask, other=0.0).to(tl.float32)
        z = tl.load(z_ptr + g * stride_zg + offs_n * stride_zn, mask=n_mask, other=0).to(tl.int32)
        w = ((q - z[None, :]).to(tl.float32) * s[None, :]).to(tl.float16)
        acc = tl.dot(x.to(tl.float16), w, acc)
    o_ptrs = out_ptr + offs_m[:, None] * stride_om + offs_n[None, :] * stride_on
    tl.store(o_ptrs, acc.to(out_ptr.dtype.element_ty), mask=m_mask[:, None] & n_mask[None, :])


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int, group_size: int):
        super().__init__()
        # same buffers, created in the same order as the reference so that seeded init matches
        k, n, g = in_features, out_features, group_size
        self.group_size = g
        self.register_buffer("qweight", torch.randint(0, 256, (k // 2, n), dtype=torch.uint8))
        self.register_buffer("scales", ((torch.rand(k // g, n) + 0.5) / (6.5 * k ** 0.5)).to(torch.float16))
        self.register_buffer("zeros", torch.randint(0, 16, (k // g, n), dtype=torch.uint8))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        M, K = x.shape
        N = self.qweight.shape[1]
        G = self.group_size
        out = torch.empty((M, N), dtype=x.dtype, device=x.device)
        BLOCK_M = 64 if M > 32 else 32
        BLOCK_N = 128
        BLOCK_K = min(64, G)
        assert G % BLOCK_K == 0 and BLOCK_K >= 16
        grid = (triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N),)
        _w4a16_kernel[grid](x, self.qweight, self.scales, self.zeros, out, M, N, K, G,
                            x.stride(0), x.stride(1), self.qweight.stride(0), self.qweight.stride(1),
                            self.scales.stride(0), self.scales.stride(1), self.zeros.stride(0), self.zeros.stride(1),
                            out.stride(0), out.stride(1),
                            BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, GROUP_M=8,
                            num_warps=4, num_stages=3)
        return out
