"""Adaptive 2D average pooling of 50x50 feature maps down to 7x7 (uneven, overlapping windows)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Pooling",
    "dtype": "float32",
    "flops": "N * C * H * W",
    "bytes": "4 * (N * C * H * W + N * C * OUT_H * OUT_W)",
    "small": {"N": 2, "C": 4, "H": 11, "W": 9, "OUT_H": 3, "OUT_W": 4},
}

N = 640
C = 512
H = 50
W = 50
OUT_H = 7
OUT_W = 7


class Model(nn.Module):
    """nn.AdaptiveAvgPool2d((out_h, out_w))."""

    def __init__(self, out_h: int, out_w: int):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d((out_h, out_w))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


def get_inputs():
    return [torch.randn(N, C, H, W)]


def get_init_inputs():
    return [OUT_H, OUT_W]
