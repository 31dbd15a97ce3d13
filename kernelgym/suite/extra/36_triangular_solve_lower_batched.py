"""Batched lower-triangular solve L X = B (torch.linalg.solve_triangular, upper=False) with well-conditioned L.

L = diag(1 + u) + strict_lower(randn) / sqrt(N) with u ~ U(0, 1): its condition number is ~5 at N = 512, so the
solution is O(1) and insensitive to rounding. A blocked solver that uses TF32 tensor-core updates meets
atol = rtol = 1e-2.
"""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "LinearAlgebra",
    "level": 1,
    "dtype": "float32",
    "flops": "BATCH * N * N * NRHS",
    "bytes": "4 * BATCH * (N * N // 2 + 2 * N * NRHS)",
    "small": {"BATCH": 2, "N": 40, "NRHS": 24},
    "atol": 1e-2,
    "rtol": 1e-2,
}

BATCH = 64
N = 512
NRHS = 512


class Model(nn.Module):
    """X = L^{-1} B by forward substitution (only the lower triangle of L is read)."""

    def __init__(self):
        super().__init__()

    def forward(self, L: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.linalg.solve_triangular(L, B, upper=False)


def get_inputs():
    diag = torch.diag_embed(1.0 + torch.rand(BATCH, N))
    L = diag + torch.tril(torch.randn(BATCH, N, N), diagonal=-1) / N ** 0.5
    # the strict upper triangle holds garbage that must be ignored
    L = L + torch.triu(torch.randn(BATCH, N, N), diagonal=1) * 100.0
    return [L, torch.randn(BATCH, N, NRHS)]


def get_init_inputs():
    return []
