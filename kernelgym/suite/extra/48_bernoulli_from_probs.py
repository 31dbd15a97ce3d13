"""Bernoulli sampling with per-element probabilities: y = torch.bernoulli(p) in {0, 1} (statistical check: mean = mean(p) ~0.3, std ~0.46)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Random",
    "level": 1,
    "dtype": "float32",
    "check": "statistical",
    "flops": "R * C",
    "bytes": "2 * 4 * R * C",
    "small": {"R": 128, "C": 1024},
}

R = 32768
C = 8192


class Model(nn.Module):
    """Returning p itself would have the right mean but std ~0.17 instead of ~0.46."""

    def __init__(self):
        super().__init__()

    def forward(self, p: torch.Tensor) -> torch.Tensor:
        return torch.bernoulli(p)


def get_inputs():
    return [torch.rand(R, C) * 0.6]


def get_init_inputs():
    return []
