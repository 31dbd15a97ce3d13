"""Mean squared error loss between predictions and noisy targets (scalar mean over all elements)."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Loss",
    "dtype": "float32",
    "flops": "3 * B * D",
    "bytes": "4 * (2 * B * D + 1)",
    "small": {"B": 16, "D": 300},
}

B = 8192
D = 32768
#: the log-normal spread of each element's scale (see _spiky)
SPREAD = 1.0
#: the expected number of spikes in each input (see _spiky)
SPIKES = 128


class Model(nn.Module):
    """F.mse_loss(predictions, targets) with reduction='mean'."""

    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return F.mse_loss(predictions, targets)


def _spiky(shape):
    """Unit normals, each with its own log-normal scale (``SPREAD``), and about ``SPIKES`` of them (a Poisson
    count, at uniformly random places, signs kept) made *spikes*: the square root of ``n / SPIKES`` times a
    log-uniform factor in [1/4, 4], so that each changes the mean squared error by about 1/``SPIKES`` times its
    factor, at any shape."""
    n = math.prod(shape)
    x = torch.randn(shape) * torch.exp(SPREAD * torch.randn(shape))
    spikes = torch.rand(shape) < SPIKES / n
    factor = torch.exp((2 * torch.rand(shape) - 1) * math.log(4)) * (n / SPIKES)
    return torch.where(spikes, torch.sign(x) * factor.sqrt(), x)


def get_inputs():
    # every input element has its own log-normal scale, and each input about SPIKES large values (_spiky): a
    # kernel that reads part of the elements, or one input alone with the other's expected contribution (a table
    # made offline from this function), misses or doubles some spikes and is off by tens to hundreds of times the
    # tolerance at the default shape (tests/test_redteam_round41_verdicts.py, tests/test_redteam_round44_verdicts.py)
    return [_spiky((B, D)), _spiky((B, D))]


def get_init_inputs():
    return []
