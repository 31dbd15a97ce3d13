"""Soft-thresholding (shrinkage) with torch.where followed by clamping to [-CLIP, CLIP]."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Math",
    "dtype": "float32",
    "flops": "5 * R * K",
    "bytes": "4 * 2 * R * K",
    "small": {"R": 16, "K": 257},
}

R = 4096
K = 65536
THRESH = 0.5
CLIP = 1.5


class Model(nn.Module):
    """clamp(where(|x| > THRESH, x - THRESH * sign(x), 0), -CLIP, CLIP)."""

    def __init__(self, thresh: float, clip: float):
        super().__init__()
        self.thresh = thresh
        self.clip = clip

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        shrunk = torch.where(x.abs() > self.thresh, x - self.thresh * torch.sign(x), torch.zeros_like(x))
        return torch.clamp(shrunk, -self.clip, self.clip)


def get_inputs():
    return [torch.randn(R, K) * 1.5]


def get_init_inputs():
    return [THRESH, CLIP]
