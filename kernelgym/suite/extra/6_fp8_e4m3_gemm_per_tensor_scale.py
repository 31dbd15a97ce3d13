"""FP8 GEMM: float8_e4m3fn A (M, K) times float8_e4m3fn B (N, K)^T with float32 accumulation, per-tensor scales, bfloat16 output.

Numeric contract:
- Products of two e4m3 values are exact in float32; the accumulation is float32 (tl.dot on fp8 operands with an
  fp32 accumulator, or cuBLASLt fp8 GEMM, or the float32 matmul below). Summation order changes results by
  ~1e-6 relative.
- out = bfloat16(acc * (scale_a * scale_b)); the product of the two scalar scales is formed first in float32.
  Rounding to bfloat16 dominates the error (2^-8 relative), hence the bf16 default tolerance 2e-2.
"""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Quantization",
    "level": 1,
    "dtype": "bfloat16",
    "precision": "fp8",  # the arithmetic: e4m3 products (MFU against the fp8 ceiling)
    "flops": "2 * M * N * K",
    "bytes": "M * K + N * K + 8 + 2 * M * N",
    "small": {"M": 32, "N": 48, "K": 64},
}

M = 4096
N = 6144
K = 8192


class Model(nn.Module):
    """out = bf16((a.float() @ b.float().T) * scale_a * scale_b)."""

    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor, scale_b: torch.Tensor) -> torch.Tensor:
        acc = a.to(torch.float32) @ b.to(torch.float32).t()
        return (acc * (scale_a * scale_b)).to(torch.bfloat16)


def get_inputs():
    a = (torch.randn(M, K) * 8.0).to(torch.float8_e4m3fn)
    b = (torch.randn(N, K) * 8.0).to(torch.float8_e4m3fn)
    scale_a = (torch.rand(()) + 0.5) / 8.0
    scale_b = (torch.rand(()) + 0.5) / (8.0 * K ** 0.5)
    return [a, b, scale_a, scale_b]


def get_init_inputs():
    return []
