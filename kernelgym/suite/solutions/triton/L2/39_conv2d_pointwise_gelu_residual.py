"""Triton: one fused kernel; a 1x1 conv in NCHW is, per image, W (C_out, C_in) @ X (C_in, H*W). Tiled tl.dot GEMM
with conv bias, exact GELU and the residual add of x in the epilogue.

At the full shapes (N=64, C=256, 96x96 images: 64 x (256 x 9216 x 256), 77 GFLOP, at least 1.2 GB of DRAM traffic)
the fixed 128x128x32 tile ran at 0.97x of PyTorch's three kernels (cuDNN conv, GELU, add) on the H200, although it
moves about a third of their bytes. X[n] is contiguous along pixels, the GEMM's N dimension, while Hopper's fp32
(TF32) wgmma reads shared-memory operands K-major only: Triton copies the X tile into shared memory 4 bytes at a
time, transposing, and the 128-byte swizzle puts the 32 lanes of each copy on 2 banks (16-way conflicts: by the
layout, about 2048 shared-memory cycles per k-step against 512 of tensor-core work; not profiled). The epilogue
then converts the residual to the MMA layout and the sum back (two shared-memory round trips of the tile, 250
registers).

The X_ROWS configs turn the product around: rows = pixels, columns = channels, acc = X[n]^T @ W^T. X^T is the A
operand, which wgmma can take from registers: the X tile arrives by 16-byte cp.async into a plain (pixel-major)
shared buffer, each thread reads its fragment from there and rounds it to TF32 (nearest; the tensor cores would
otherwise drop the low 13 bits), an element-wise step that also keeps the operand in registers. W^T is K-major in
memory and goes to wgmma from shared memory. Their epilogue converts GELU's output once, to the store's layout.
The config list keeps the old kernel first; the new configs compile for sm_90 without spills but are not measured
on the H200 yet."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


GEMM_CONFIGS = [
    # the original kernel: 128 channels x 128 pixels x 32, 8 warps, 3 stages, X as the shared-memory B operand
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "X_ROWS": False}, num_warps=8, num_stages=3),
    # pixel rows, X^T from registers: the old tile shape, then with a 4th stage
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "X_ROWS": True}, num_warps=8, num_stages=3),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "X_ROWS": True}, num_warps=8, num_stages=4),
    # every channel x 64 pixels: each X tile is read once
    triton.Config({"BLOCK_M": 256, "BLOCK_N": 64, "BLOCK_K": 32, "X_ROWS": True}, num_warps=8, num_stages=3),
    # 128 channels x 64 pixels on 4 warps: 2 programs per SM, one's GELU epilogue overlaps the other's GEMM
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32, "X_ROWS": True}, num_warps=4, num_stages=4),
]


@triton.jit
def _round_to_tf32(v):
    """fp32 -> the nearest TF32 value (ties away from zero), still stored as fp32."""
    u = v.to(tl.uint32, bitcast=True)
    return ((u + 0x1000) & 0xFFFFE000).to(tl.float32, bitcast=True)


@triton.autotune(configs=GEMM_CONFIGS, key=["COUT", "CIN", "P"])
@triton.jit
def _pointwise_conv_gelu_residual_kernel(
    x_ptr, w_ptr, b_ptr, out_ptr,
    COUT, CIN, P,
    sxn, sxc, son, soc,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, X_ROWS: tl.constexpr,
):
    pid_n = tl.program_id(0)     # pixel tiles vary fastest: neighbouring programs share the weight tile
    pid_m = tl.program_id(1)
    img = tl.program_id(2).to(tl.int64)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)   # output channel
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)   # pixel
    offs_k = tl.arange(0, BLOCK_K)                     # input channel
    mask_m = offs_m < COUT
    mask_n = offs_n < P

    if X_ROWS:
        # acc[pixel, channel] = X^T @ W^T: X^T is the A operand, fed to wgmma from registers
        xt_ptrs = x_ptr + img * sxn + offs_k[None, :] * sxc + offs_n[:, None]
        wt_ptrs = w_ptr + offs_m[None, :] * CIN + offs_k[:, None]
        acc = tl.zeros((BLOCK_N, BLOCK_M), dtype=tl.float32)
        for k0 in range(0, CIN, BLOCK_K):
            kmask = (offs_k + k0) < CIN
            xt = tl.load(xt_ptrs, mask=mask_n[:, None] & kmask[None, :], other=0.0)
            wt = tl.load(wt_ptrs, mask=kmask[:, None] & mask_m[None, :], other=0.0)
            acc = tl.dot(_round_to_tf32(xt), wt, acc)
            xt_ptrs += BLOCK_K * sxc
            wt_ptrs += BLOCK_K

        mask = mask_n[:, None] & mask_m[None, :]
        bias = tl.load(b_ptr + offs_m, mask=mask_m, other=0.0)
        y = acc + bias[None, :]
        y = 0.5 * y * (1.0 + tl.math.erf(y * 0.7071067811865476))
        res = tl.load(x_ptr + img * sxn + offs_m[None, :] * sxc + offs_n[:, None], mask=mask, other=0.0)
        out_ptrs = out_ptr + img * son + offs_m[None, :] * soc + offs_n[:, None]
        # Triton would convert res to the MMA layout for the add and the sum back for the store (two shared-memory
        # round trips of the tile); routed through the `other` of a load that is always masked off (offs_n >= 0), y is
        # converted once, to the store's layout, and the add happens there (245 -> 190 registers on sm_90)
        y = tl.load(out_ptrs, mask=mask & (offs_n < 0)[:, None], other=y)
        tl.store(out_ptrs, res + y, mask=mask)
    else:
        w_ptrs = w_ptr + offs_m[:, None] * CIN + offs_k[None, :]
        x_ptrs = x_ptr + img * sxn + offs_k[:, None] * sxc + offs_n[None, :]

        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, CIN, BLOCK_K):
            kmask = (offs_k + k0) < CIN
            a = tl.load(w_ptrs, mask=mask_m[:, None] & kmask[None, :], other=0.0)
            b = tl.load(x_ptrs, mask=kmask[:, None] & mask_n[None, :], other=0.0)
            acc = tl.dot(a, b, acc)
            w_ptrs += BLOCK_K
            x_ptrs += BLOCK_K * sxc

        mask = mask_m[:, None] & mask_n[None, :]
        bias = tl.load(b_ptr + offs_m, mask=mask_m, other=0.0)
        y = acc + bias[:, None]
        y = 0.5 * y * (1.0 + tl.math.erf(y * 0.7071067811865476))
        res = tl.load(x_ptr + img * sxn + offs_m[:, None] * sxc + offs_n[None, :], mask=mask, other=0.0)
        tl.store(out_ptr + img * son + offs_m[:, None] * soc + offs_n[None, :], res + y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        NB, C, H, W = x.shape
        COUT = self.conv.weight.shape[0]
        w = self.conv.weight.reshape(COUT, C)
        P = H * W
        out = torch.empty((NB, COUT, H, W), device=x.device, dtype=x.dtype)
        grid = lambda meta: (triton.cdiv(P, meta["BLOCK_N"]), triton.cdiv(COUT, meta["BLOCK_M"]), NB)
        _pointwise_conv_gelu_residual_kernel[grid](
            x, w, self.conv.bias, out,
            COUT, C, P,
            x.stride(0), x.stride(1), out.stride(0), out.stride(1),
        )
        return out
