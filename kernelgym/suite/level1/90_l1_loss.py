"""Mean absolute error (L1 loss) between two (B, T, D) tensors."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Loss",
    "dtype": "float32",
    "flops": "3 * B * T * D",
    "bytes": "4 * (2 * B * T * D + 1)",
    "small": {"B": 2, "T": 6, "D": 130},
}

B = 32
T = 1024
D = 8192
#: the log-normal spread of each target element's scale (see get_inputs)
SPREAD = 2.0


class Model(nn.Module):
    """F.l1_loss(predictions, targets) with reduction='mean'."""

    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return F.l1_loss(predictions, targets)


def get_inputs():
    predictions = torch.randn(B, T, D)
    # each target element has its own log-normal scale: the mean then depends on every element, and a mean over
    # part of them, scaled up (a kernel that reads a subsample), is off by several times the tolerance at the
    # default shape; with one scale per row of D it was within a fraction of it
    # (tests/test_redteam_round41_verdicts.py)
    targets = torch.randn(B, T, D) * torch.exp(SPREAD * torch.randn(B, T, D))
    return [predictions, targets]


def get_init_inputs():
    return []
