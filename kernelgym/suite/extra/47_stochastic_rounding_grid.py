"""Stochastic rounding to a grid of spacing STEP: y = STEP * floor(x / STEP + U(0, 1)), unbiased (E[y] = x).

Inputs are an integer multiple of STEP plus a fraction in [0, 0.4) * STEP, so round-to-nearest would return the
integer part only (mean ~1.5) while stochastic rounding keeps the mean of x (~1.7): the statistical check (mean and
std of the output) tells them apart.
"""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Random",
    "level": 1,
    "dtype": "float32",
    "check": "statistical",
    "flops": "4 * N",
    "bytes": "2 * 4 * N",
    "small": {"N": 131072},
}

N = 201_326_592
STEP = 1.0


class Model(nn.Module):
    """Randomized rounding with fresh uniforms per call."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return STEP * torch.floor(x / STEP + torch.rand_like(x))


def get_inputs():
    return [(torch.randint(0, 4, (N,)).to(torch.float32) + torch.rand(N) * 0.4) * STEP]


def get_init_inputs():
    return []
