"""Smooth L1 (Huber-style) loss with beta 0.5 between two 3D tensors, averaged to a scalar."""
import math

import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Loss",
    "dtype": "float32",
    "flops": "5 * B * T * D",
    "bytes": "4 * (2 * B * T * D + 1)",
    "small": {"B": 2, "T": 8, "D": 150},
}

B = 64
T = 512
D = 8192
BETA = 0.5
#: the log-normal spread of each element's scale, predictions' and residuals' (see _spiky)
SPREAD = 2.0
#: the expected number of spikes in each input (see _spiky)
SPIKES = 128


class Model(nn.Module):
    """nn.SmoothL1Loss(beta=0.5): 0.5 * d^2 / beta where |d| < beta, |d| - 0.5 * beta elsewhere; mean."""

    def __init__(self, beta: float):
        super().__init__()
        self.loss = nn.SmoothL1Loss(beta=beta)

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return self.loss(predictions, targets)


def _spiky(shape):
    """Unit normals, each with its own log-normal scale (``SPREAD``), and about ``SPIKES`` of them (a Poisson
    count, at uniformly random places, signs kept) made *spikes*: ``n / SPIKES`` times a log-uniform factor in
    [1/4, 4], so that each changes the mean loss by about 1/``SPIKES`` times its factor, at any shape."""
    n = math.prod(shape)
    x = torch.randn(shape) * torch.exp(SPREAD * torch.randn(shape))
    spikes = torch.rand(shape) < SPIKES / n
    factor = torch.exp((2 * torch.rand(shape) - 1) * math.log(4)) * (n / SPIKES)
    return torch.where(spikes, torch.sign(x) * factor, x)


def get_inputs():
    # residuals heavy-tailed, as regression residuals often are; predictions too, so that the targets alone do not
    # tell the residuals
    # every input element has its own log-normal scale, and each input about SPIKES large values (_spiky): a
    # kernel that reads part of the elements, or one input alone with the other's expected contribution (a table
    # made offline from this function), misses or doubles some spikes and is off by tens to hundreds of times the
    # tolerance at the default shape (tests/test_redteam_round41_verdicts.py, tests/test_redteam_round44_verdicts.py)
    predictions = _spiky((B, T, D))
    return [predictions, predictions + _spiky((B, T, D))]


def get_init_inputs():
    return [BETA]
