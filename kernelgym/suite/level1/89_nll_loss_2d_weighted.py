"""Class-weighted NLL loss over per-pixel log-softmax scores (semantic segmentation, 21 classes)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Loss",
    "dtype": "float32",
    "flops": "4 * N * C * H * W",
    "bytes": "4 * N * C * H * W + 8 * N * H * W + 4 * C + 4",
    "small": {"N": 2, "H": 6, "W": 7},
}

N = 64
C = 21
H = 512
W = 512


class Model(nn.Module):
    """F.nll_loss(F.log_softmax(x, dim=1), target, weight=class_weight): weighted mean over pixels."""

    def __init__(self, num_classes: int):
        super().__init__()
        self.register_buffer("class_weight", torch.rand(num_classes) + 0.5)

    def forward(self, x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return F.nll_loss(F.log_softmax(x, dim=1), target, weight=self.class_weight)


def get_inputs():
    x = torch.randn(N, C, H, W) * (torch.rand(N, 1, H, 1) * 3)
    target = torch.randint(0, C, (N, H, W))
    return [x, target]


def get_init_inputs():
    return [C]
