"""Static per-tensor asymmetric int8 quantization: q = clamp(round_half_even(x * INV_SCALE) + ZERO_POINT, -128, 127).

Numeric contract:
- INV_SCALE = 42.5 is exactly representable, so x * INV_SCALE is one correctly rounded float32 multiply
  (identical on every IEEE device; do not replace it by a division by 1/42.5).
- Rounding is round-half-to-even (torch.round); ties such as 2.5 -> 2 and -3.5 -> -4 must be reproduced.
  (In Triton there is no rint: emulate it, e.g. r = floor(y + 0.5); r -= 1 where r - y == 0.5 and r is odd.)
- The zero point is added after rounding, then the result is clamped to [-128, 127] and stored as int8.
Every step is exact given the IEEE multiply, so the output is compared exactly (atol = rtol = 0).
"""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Quantization",
    "level": 1,
    "dtype": "int8",
    "flops": "4 * R * C",
    "bytes": "4 * R * C + R * C",
    "small": {"R": 33, "C": 120},
}

R = 8192
C = 12288
INV_SCALE = 42.5
ZERO_POINT = -3


class Model(nn.Module):
    """Quantizes a float32 tensor to int8 with a fixed (calibrated) scale and zero point."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q = torch.round(x * INV_SCALE) + ZERO_POINT
        return q.clamp(-128, 127).to(torch.int8)


def get_inputs():
    # |x| reaches ~5 * 1.1, so a few percent of the values saturate at -128 / 127.
    x = torch.randn(R, C) * 1.1
    # a sprinkling of exact ties (k + 0.5) / 42.5 exercises round-half-to-even
    ties = (torch.randint(-100, 100, (R, C)).float() + 0.5) / INV_SCALE
    return [torch.where(torch.rand(R, C) < 0.01, ties, x)]


def get_init_inputs():
    return []
