"""Elementwise ELU with alpha=1.5: x for x > 0, alpha * (exp(x) - 1) otherwise (fp32)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Activation",
    "dtype": "float32",
    "flops": "3 * B * D",
    "bytes": "2 * B * D * 4",
    "small": {"B": 30, "D": 64},
}

B = 36000
D = 32768


class Model(nn.Module):
    """Applies ELU with a configurable alpha."""

    def __init__(self, alpha: float = 1.5):
        super().__init__()
        self.alpha = alpha

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.elu(x, alpha=self.alpha)


def get_inputs():
    return [torch.randn(B, D) * 2]


def get_init_inputs():
    return [1.5]
