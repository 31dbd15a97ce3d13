"""Inverted dropout in training mode: y = x * Bernoulli(1 - P) / (1 - P), applied to x ~ N(1, 1) (statistical check).

The judged quantities are the output's mean (~1, the scaling keeps it) and standard deviation
(sqrt(2 / (1 - P) - 1) ~ 1.36 for P = 0.3, versus 1.0 without dropout). The mask must come from a seedable RNG
(torch.manual_seed), e.g. a seed drawn with torch.randint and fed to tl.rand.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Random",
    "level": 1,
    "dtype": "float32",
    "check": "statistical",
    "flops": "3 * R * C",
    "bytes": "2 * 4 * R * C",
    "small": {"R": 256, "C": 512},
}

R = 98304
C = 8192
P = 0.3


class Model(nn.Module):
    """F.dropout(x, P, training=True) (independent of the module's train/eval flag)."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.dropout(x, p=P, training=True)


def get_inputs():
    return [torch.randn(R, C) + 1.0]


def get_init_inputs():
    return []
