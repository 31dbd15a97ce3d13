"""W8A8 GEMM: int8 activations times int8 weights^T, exact integer accumulation, then per-row and per-column float32 scales.

Numeric contract:
- a_q (M, K) and w_q (N, K) hold int8 values in [-128, 127]. The dot products acc = a_q @ w_q^T are exact integers
  (|acc| <= K * 128 * 128 = 2^26 at the default K), so any faithful implementation (tl.dot on int8 with int32
  accumulation, torch._int_mm, float64 matmul as below) gets bit-identical accumulators. float32 is NOT exact here
  (|acc| > 2^24), so do not accumulate int8 products in fp32/TF32/fp16.
- out = float32(acc) * a_scale[m] * w_scale[n], evaluated left to right in float32. Converting the integer to
  float32 rounds to nearest; a different multiplication order changes the result by at most ~2 ulp (relative
  2.4e-7), far inside rtol = 1e-4.
- The reference accumulates in float64 (exact for these sizes) because int8/int32 matmul is not available for
  every device in eager PyTorch; it runs on CPU and GPU alike.
"""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Quantization",
    "level": 1,
    "dtype": "float32",
    "precision": "int8",  # the arithmetic: int8 products, int32 accumulation (MFU against the int8 ceiling)
    "flops": "2 * M * N * K",
    "bytes": "M * K + N * K + 4 * (M + N) + 4 * M * N",
    "small": {"M": 48, "N": 40, "K": 96},
    "atol": 1e-4,
    "rtol": 1e-4,
}

M = 4096
N = 5120
K = 4096


class Model(nn.Module):
    """out[m, n] = float32(sum_k a_q[m, k] * w_q[n, k]) * a_scale[m] * w_scale[n]."""

    def __init__(self):
        super().__init__()

    def forward(self, a_q: torch.Tensor, w_q: torch.Tensor, a_scale: torch.Tensor, w_scale: torch.Tensor) -> torch.Tensor:
        acc = a_q.to(torch.float64) @ w_q.to(torch.float64).t()  # exact integer accumulation
        return acc.to(torch.float32) * a_scale.view(-1, 1) * w_scale.view(1, -1)


def get_inputs():
    a_q = torch.randint(-128, 128, (M, K), dtype=torch.int8)
    w_q = torch.randint(-128, 128, (N, K), dtype=torch.int8)
    a_scale = (torch.rand(M) + 0.5) / 127.0                 # per-token scale, like amax / 127
    w_scale = (torch.rand(N) + 0.5) / (127.0 * K ** 0.5)    # per-output-channel scale; keeps out O(1)
    return [a_q, w_q, a_scale, w_scale]


def get_init_inputs():
    return []
