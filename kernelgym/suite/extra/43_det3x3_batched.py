"""Determinants of a large batch of 3x3 matrices (torch.linalg.det); a closed-form cofactor expansion is accurate to ~1e-6 here."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "LinearAlgebra",
    "level": 1,
    "dtype": "float32",
    "flops": "17 * N",
    "bytes": "4 * (9 * N + N)",
    "small": {"N": 2000},
    "atol": 1e-4,
    "rtol": 1e-3,
}

N = 12_582_912


class Model(nn.Module):
    """det(A[i]) for A of shape (N, 3, 3)."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor) -> torch.Tensor:
        return torch.linalg.det(A)


def get_inputs():
    return [torch.randn(N, 3, 3)]


def get_init_inputs():
    return []
