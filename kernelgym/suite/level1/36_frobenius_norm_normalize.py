"""Divides a whole N x C x H x W fp32 tensor by its Frobenius norm (a global reduction followed by a scale)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Normalization",
    "dtype": "float32",
    "flops": "3 * N * C * H * W",
    "bytes": "2 * N * C * H * W * 4",
    "small": {"N": 2, "C": 3, "H": 10, "W": 12},
    "atol": 1e-9, "rtol": 1e-4,
}

N = 96
C = 64
H = 320
W = 320


class Model(nn.Module):
    """x / ||x||_F over all elements."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x / torch.linalg.vector_norm(x)


def get_inputs():
    # each element's scale drawn log-normal (heavy tails, as activations have): with i.i.d. unit normals the norm of
    # every 4th element, scaled up, was within rtol of the whole one at the default shape (off by 5e-5 at most, a
    # red-team finding, round 40); here sqrt(Var(x^2)) / E(x^2) is sqrt(3 e^9 - 1) = 156 (1.41 for normals), and a
    # partial read's error grows with it. In place: two tensors of the input's size at most while it is made
    x = torch.randn(N, C, H, W)
    return [x.mul_(torch.randn(N, C, H, W).mul_(1.5).exp_())]


def get_init_inputs():
    return []
