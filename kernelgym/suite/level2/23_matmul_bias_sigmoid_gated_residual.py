"""bf16 square matmul with a learned weight and bias, sigmoid gate on the input, plus a residual add."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Fusion",
    "dtype": "bfloat16",
    "flops": "2 * M * D * D + 7 * M * D",
    "bytes": "2 * (M * D + D * D + D + M * D)",
    "small": {"M": 48, "D": 40},
}

M = 8192
D = 8192


class Model(nn.Module):
    """g = sigmoid(x @ W + b); out = x * g + x."""

    def __init__(self, dim):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(dim, dim) / dim ** 0.5)
        self.bias = nn.Parameter(torch.randn(dim) * 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        g = torch.sigmoid(torch.matmul(x, self.weight) + self.bias)
        return x * g + x


def get_inputs():
    return [torch.randn(M, D, dtype=torch.bfloat16)]


def get_init_inputs():
    return [D]
