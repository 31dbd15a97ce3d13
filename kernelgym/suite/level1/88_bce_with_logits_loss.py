"""Binary cross-entropy with logits against soft targets in [0, 1] (mean over all elements)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Loss",
    "dtype": "float32",
    "flops": "8 * B * D",
    "bytes": "4 * (2 * B * D + 1)",
    "small": {"B": 16, "D": 200},
}

B = 16384
D = 16384


class Model(nn.Module):
    """F.binary_cross_entropy_with_logits(logits, targets)."""

    def __init__(self):
        super().__init__()

    def forward(self, logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return F.binary_cross_entropy_with_logits(logits, targets)


def get_inputs():
    logits = torch.randn(B, D) * (torch.rand(B, 1) * 6)
    targets = torch.rand(B, D)
    return [logits, targets]


def get_init_inputs():
    return []
