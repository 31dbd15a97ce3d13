"""Backward warping of an image batch by a dense flow field: F.grid_sample(img, base_grid + flow, bilinear, zeros padding, align_corners=False)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "SpatialOps",
    "level": 1,
    "dtype": "float32",
    "flops": "10 * B * C * H * W",
    "bytes": "4 * (2 * B * C * H * W + 2 * B * H * W)",
    "small": {"B": 2, "C": 3, "H": 12, "W": 10},
}

B = 24
C = 96
H = 256
W = 320


class Model(nn.Module):
    """The sampling grid is the pixel-centre grid in normalized coordinates plus a flow given in normalized units."""

    def __init__(self):
        super().__init__()

    def forward(self, img: torch.Tensor, flow: torch.Tensor) -> torch.Tensor:
        b, _, h, w = img.shape
        ys = (torch.arange(h, dtype=img.dtype, device=img.device) * 2 + 1) / h - 1
        xs = (torch.arange(w, dtype=img.dtype, device=img.device) * 2 + 1) / w - 1
        base = torch.stack(torch.meshgrid(xs, ys, indexing="xy"), dim=-1)      # (h, w, 2) as (x, y)
        grid = base.unsqueeze(0) + flow
        return F.grid_sample(img, grid, mode="bilinear", padding_mode="zeros", align_corners=False)


def get_inputs():
    img = torch.randn(B, C, H, W)
    flow = torch.randn(B, H, W, 2) * 0.05         # displacements of a few pixels; some samples leave the image
    return [img, flow]


def get_init_inputs():
    return []
