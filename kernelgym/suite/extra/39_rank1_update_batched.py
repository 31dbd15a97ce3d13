"""Batched rank-1 update (outer product accumulate): out[b] = A[b] + ALPHA * u[b] v[b]^T."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "LinearAlgebra",
    "level": 1,
    "dtype": "float32",
    "flops": "3 * BATCH * NDIM * MCOLS",
    "bytes": "4 * BATCH * (2 * NDIM * MCOLS + NDIM + MCOLS)",
    "small": {"BATCH": 3, "NDIM": 33, "MCOLS": 40},
}

BATCH = 192
NDIM = 1024
MCOLS = 1536
ALPHA = -0.75


class Model(nn.Module):
    """torch.baddbmm(A, u[:, :, None], v[:, None, :], alpha=ALPHA) (an inner dimension of 1, so no rounding in the product beyond one multiply)."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return torch.baddbmm(A, u.unsqueeze(2), v.unsqueeze(1), alpha=ALPHA)


def get_inputs():
    return [torch.randn(BATCH, NDIM, MCOLS), torch.randn(BATCH, NDIM), torch.randn(BATCH, MCOLS)]


def get_init_inputs():
    return []
