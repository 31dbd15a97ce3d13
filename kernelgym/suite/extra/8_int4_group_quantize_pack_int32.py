"""Group-wise symmetric int4 weight quantization, packing eight 4-bit codes per int32; returns (packed int32, float32 scales).

Numeric contract (exact; compared with atol = rtol = 0):
- Groups of G consecutive elements along K: amax = max |w| over the group; scale = amax * fp32(1/7) (one
  float32 multiply by the float32 constant, not a division; see X/7 for why).
- q = clamp(round_half_even(w / scale), -8, 7), with IEEE correctly rounded float32 division (Triton on GPU:
  tl.math.div_rn, not `/`); the stored code is u = q + 8 in [0, 15].
- packed[n, j] holds u[n, 8j + i] in bits 4i..4i+3 (i = 0 is the least significant nibble), reinterpreted as a
  signed int32 (two's complement: codes >= 8 in the top nibble give a negative number).
"""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Quantization",
    "level": 1,
    "dtype": "int32",
    "flops": "5 * N * K",
    "bytes": "4 * N * K + N * K // 2 + 4 * N * (K // G)",
    "small": {"N": 24, "K": 256, "G": 64},
}

N = 8192
K = 8192
G = 128


class Model(nn.Module):
    """GPTQ/AWQ-style int4 packing of a float32 weight matrix (N, K) -> (N, K // 8) int32 and (N, K // G) scales."""

    def __init__(self, group_size: int):
        super().__init__()
        self.group_size = group_size

    def forward(self, w: torch.Tensor):
        n, k = w.shape
        g = self.group_size
        wg = w.reshape(n, k // g, g)
        scale = wg.abs().amax(dim=-1, keepdim=True) * (1.0 / 7.0)
        q = torch.round(wg / scale).clamp(-8, 7)
        u = (q + 8).to(torch.int64).reshape(n, k // 8, 8)
        shifts = torch.arange(0, 32, 4, dtype=torch.int64, device=w.device)
        packed = (u << shifts).sum(dim=-1)                               # in [0, 2^32)
        packed = torch.where(packed >= 2 ** 31, packed - 2 ** 32, packed).to(torch.int32)
        return packed, scale.reshape(n, k // g)


def get_inputs():
    return [torch.randn(N, K) * 0.02]


def get_init_inputs():
    return [G]
