"""Triplet margin loss (margin 1, L2 distance) over anchor/positive/negative embedding batches."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Loss",
    "dtype": "float32",
    "flops": "6 * B * D",
    "bytes": "4 * (3 * B * D + 1)",
    "small": {"B": 16, "D": 64},
}

B = 32768
D = 4096


class Model(nn.Module):
    """nn.TripletMarginLoss(margin=1.0): mean(max(0, ||a - p|| - ||a - n|| + 1))."""

    def __init__(self):
        super().__init__()
        self.loss = nn.TripletMarginLoss(margin=1.0)

    def forward(self, anchor: torch.Tensor, positive: torch.Tensor, negative: torch.Tensor) -> torch.Tensor:
        return self.loss(anchor, positive, negative)


def get_inputs():
    anchor = torch.randn(B, D)
    # positives and negatives are perturbations of the anchor with random per-row strengths:
    # a mix of easy (zero-loss) and hard triplets
    positive = anchor + torch.randn(B, D) * torch.rand(B, 1)
    negative = anchor + torch.randn(B, D) * torch.rand(B, 1)
    return [anchor, positive, negative]


def get_init_inputs():
    return []
