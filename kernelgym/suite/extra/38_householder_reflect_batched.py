"""Apply a Householder reflection to a batch of matrices: Y = X - 2 v (v^T X) / (v^T v) (a rank-1 update per matrix)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "LinearAlgebra",
    "level": 1,
    "dtype": "float32",
    "flops": "4 * BATCH * NDIM * MCOLS + 2 * BATCH * NDIM",
    "bytes": "4 * BATCH * (2 * NDIM * MCOLS + NDIM)",
    "small": {"BATCH": 3, "NDIM": 40, "MCOLS": 24},
    "atol": 1e-3,
    "rtol": 1e-3,
}

BATCH = 4096
NDIM = 256
MCOLS = 192


class Model(nn.Module):
    """H = I - 2 v v^T / (v^T v) applied from the left to X (BATCH, NDIM, MCOLS)."""

    def __init__(self):
        super().__init__()

    def forward(self, X: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        vtx = torch.einsum("bn,bnm->bm", v, X)
        vtv = (v * v).sum(dim=1, keepdim=True)
        return X - 2.0 * v.unsqueeze(2) * (vtx / vtv).unsqueeze(1)


def get_inputs():
    X = torch.randn(BATCH, NDIM, MCOLS)
    v = torch.randn(BATCH, NDIM)
    v[:, 0] += 4.0 * torch.sign(v[:, 0])        # like v = x + sign(x0) ||x|| e0 in a QR step
    return [X, v]


def get_init_inputs():
    return []
