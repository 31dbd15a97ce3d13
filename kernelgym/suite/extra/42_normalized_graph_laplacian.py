"""Symmetric normalized graph Laplacian of batched weighted adjacency matrices: L = I - D^{-1/2} A D^{-1/2} with D = diag(row sums of A).

Off-diagonal entries are ~1/n, so the absolute tolerance is tight (1e-6); row sums of n positive terms are
accurate to ~1e-6 relative in any order.
"""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "LinearAlgebra",
    "level": 2,
    "dtype": "float32",
    "flops": "4 * BATCH * NDIM * NDIM",
    "bytes": "2 * 4 * BATCH * NDIM * NDIM",
    "small": {"BATCH": 3, "NDIM": 30},
    "atol": 1e-6,
    "rtol": 1e-4,
}

BATCH = 512
NDIM = 768


class Model(nn.Module):
    """Degree reduction, rsqrt, two diagonal scalings and an identity shift."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor) -> torch.Tensor:
        deg = A.sum(dim=-1)
        dinv = deg.rsqrt()
        eye = torch.eye(A.shape[-1], dtype=A.dtype, device=A.device)
        return eye - dinv.unsqueeze(-1) * A * dinv.unsqueeze(-2)


def get_inputs():
    W = torch.rand(BATCH, NDIM, NDIM) ** 4            # sparse-ish weights
    return [(W + W.transpose(1, 2)) * 0.5]


def get_init_inputs():
    return []
