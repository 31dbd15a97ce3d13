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


class Model(nn.Module):
    """F.l1_loss(predictions, targets) with reduction='mean'."""

    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return F.l1_loss(predictions, targets)


def get_inputs():
    predictions = torch.randn(B, T, D)
    targets = torch.randn(B, T, D) * (torch.rand(B, T, 1) * 2)
    return [predictions, targets]


def get_init_inputs():
    return []
