"""Elementwise asymmetric HardTanh: clamp(x, -0.75, 1.25) on a tall 2D fp32 tensor."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Activation",
    "dtype": "float32",
    "flops": "2 * B * D",
    "bytes": "2 * B * D * 4",
    "small": {"B": 40, "D": 64},
}

B = 300000
D = 4096


class Model(nn.Module):
    """Applies HardTanh with configurable bounds."""

    def __init__(self, min_val: float = -0.75, max_val: float = 1.25):
        super().__init__()
        self.min_val = min_val
        self.max_val = max_val

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.hardtanh(x, min_val=self.min_val, max_val=self.max_val)


def get_inputs():
    return [torch.randn(B, D)]


def get_init_inputs():
    return [-0.75, 1.25]
