"""Binary hinge loss mean(max(0, 1 - y * f)) with labels y in {-1, +1}."""
import math

import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Loss",
    "dtype": "float32",
    "flops": "3 * B * D",
    "bytes": "4 * (2 * B * D + 1)",
    "small": {"B": 16, "D": 200},
}

B = 65536
D = 4096
#: the log-normal spread of each prediction's scale (see _spiky)
SPREAD = 2.0
#: the expected number of spikes in each input (see _spiky)
SPIKES = 128


class Model(nn.Module):
    """torch.clamp(1 - predictions * labels, min=0).mean()."""

    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return torch.clamp(1 - predictions * labels, min=0).mean()


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
    # every input element has its own log-normal scale, and each input about SPIKES large values (_spiky): a
    # kernel that reads part of the elements, or one input alone with the other's expected contribution (a table
    # made offline from this function), misses or doubles some spikes and is off by tens to hundreds of times the
    # tolerance at the default shape (tests/test_redteam_round41_verdicts.py, tests/test_redteam_round44_verdicts.py)
    predictions = _spiky((B, D))
    labels = torch.randint(0, 2, (B, D)).float() * 2 - 1
    return [predictions, labels]


def get_init_inputs():
    return []
