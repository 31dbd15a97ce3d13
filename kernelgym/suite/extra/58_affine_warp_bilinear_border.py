"""2D affine warp: F.affine_grid(theta, align_corners=False) followed by bilinear F.grid_sample with border padding."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "SpatialOps",
    "level": 1,
    "dtype": "float32",
    "flops": "14 * B * C * H * W",
    "bytes": "4 * (2 * B * C * H * W + 6 * B)",
    "small": {"B": 2, "C": 3, "H": 10, "W": 13},
}

B = 64
C = 32
H = 384
W = 384


class Model(nn.Module):
    """theta (B, 2, 3) maps output normalized coordinates to input ones (rotation, anisotropic scale, shift)."""

    def __init__(self):
        super().__init__()

    def forward(self, img: torch.Tensor, theta: torch.Tensor) -> torch.Tensor:
        grid = F.affine_grid(theta, list(img.shape), align_corners=False)
        return F.grid_sample(img, grid, mode="bilinear", padding_mode="border", align_corners=False)


def get_inputs():
    img = torch.randn(B, C, H, W)
    ang = (torch.rand(B) - 0.5) * 1.2
    sx, sy = 0.8 + 0.4 * torch.rand(B), 0.8 + 0.4 * torch.rand(B)
    tx, ty = (torch.rand(B) - 0.5) * 0.4, (torch.rand(B) - 0.5) * 0.4
    row0 = torch.stack((sx * torch.cos(ang), -sy * torch.sin(ang), tx), dim=1)
    row1 = torch.stack((sx * torch.sin(ang), sy * torch.cos(ang), ty), dim=1)
    return [img, torch.stack((row0, row1), dim=1)]


def get_init_inputs():
    return []
