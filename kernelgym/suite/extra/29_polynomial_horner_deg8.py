"""Elementwise degree-8 polynomial p(x) = sum_i c_i x^i with fixed coefficients, evaluated by Horner's rule."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Math",
    "level": 1,
    "dtype": "float32",
    "flops": "2 * DEG * R * C",
    "bytes": "2 * 4 * R * C",
    "small": {"R": 64, "C": 100},
}

R = 8192
C = 8192
DEG = 8


class Model(nn.Module):
    """Horner evaluation; any evaluation order (Estrin, FMA) agrees within the default tolerance since |x| <= 1.5."""

    def __init__(self, degree: int):
        super().__init__()
        self.degree = degree
        self.register_buffer("coeffs", torch.randn(degree + 1) * 0.6 ** torch.arange(degree + 1, dtype=torch.float32))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        c = self.coeffs
        y = torch.full_like(x, 0.0) + c[self.degree]
        for i in range(self.degree - 1, -1, -1):
            y = y * x + c[i]
        return y


def get_inputs():
    return [torch.rand(R, C) * 3.0 - 1.5]


def get_init_inputs():
    return [DEG]
