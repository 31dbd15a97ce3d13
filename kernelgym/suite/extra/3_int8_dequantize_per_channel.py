"""Per-channel asymmetric int8 dequantization of a weight matrix: w[n, k] = float32(q[n, k] - zero_point[n]) * scale[n].

Numeric contract:
- q is int8, zero_point is int32 (values in [-20, 20]); q - zero_point is an exact small integer, its float32
  conversion is exact, and the single float32 multiply by scale[n] is correctly rounded. The result is therefore
  bit-exact for any faithful implementation; the default float32 tolerance (1e-4) only guards against nothing.
  (Computing q * scale - zero_point * scale instead is NOT faithful: it rounds twice.)
"""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Quantization",
    "level": 1,
    "dtype": "float32",
    "flops": "2 * N * K",
    "bytes": "N * K + 8 * N + 4 * N * K",
    "small": {"N": 40, "K": 136},
}

N = 16384
K = 8192


class Model(nn.Module):
    """Dequantizes int8 weights with a per-output-channel scale and zero point."""

    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, scale: torch.Tensor, zero_point: torch.Tensor) -> torch.Tensor:
        return (q.to(torch.int32) - zero_point.view(-1, 1)).to(torch.float32) * scale.view(-1, 1)


def get_inputs():
    q = torch.randint(-128, 128, (N, K), dtype=torch.int8)
    scale = (torch.rand(N) + 0.25) * 0.02
    zero_point = torch.randint(-20, 21, (N,), dtype=torch.int32)
    return [q, scale, zero_point]


def get_init_inputs():
    return []
