"""Batched linear solve A X = B for many small symmetric positive-definite systems (torch.linalg.solve); A = M M^T / NDIM + I has condition number <= ~5."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "LinearAlgebra",
    "level": 1,
    "dtype": "float32",
    "flops": "BATCH * (2 * NDIM * NDIM * NDIM // 3 + 2 * NDIM * NDIM * NRHS)",
    "bytes": "4 * BATCH * (NDIM * NDIM + 2 * NDIM * NRHS)",
    "small": {"BATCH": 6, "NDIM": 12, "NRHS": 3},
    "atol": 1e-3,
    "rtol": 1e-3,
}

BATCH = 65536
NDIM = 32
NRHS = 8


class Model(nn.Module):
    """X = A^{-1} B; any stable factorization (Cholesky, LU, Gauss-Jordan without pivoting) is accurate here."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.linalg.solve(A, B)


def get_inputs():
    Mx = torch.randn(BATCH, NDIM, NDIM)
    A = Mx @ Mx.transpose(1, 2) / NDIM + torch.eye(NDIM)
    return [A, torch.randn(BATCH, NDIM, NRHS)]


def get_init_inputs():
    return []
