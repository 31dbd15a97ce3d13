"""Mean squared error loss between predictions and noisy targets (scalar mean over all elements)."""
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
#: the log-normal spread of each target element's scale (see get_inputs)
SPREAD = 1.0


class Model(nn.Module):
    """F.mse_loss(predictions, targets) with reduction='mean'."""

    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return F.mse_loss(predictions, targets)


def get_inputs():
    # each target element has its own log-normal scale: the mean then depends on every element, and a mean over
    # part of them, scaled up (a kernel that reads a subsample), is off by several times the tolerance at the
    # default shape; with one scale per row it was within about the tolerance (tests/test_redteam_round41_verdicts.py)
    return [torch.randn(B, D), torch.randn(B, D) * torch.exp(SPREAD * torch.randn(B, D))]


def get_init_inputs():
    return []
