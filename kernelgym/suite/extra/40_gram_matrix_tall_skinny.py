"""Gram (covariance-like) matrix of a tall-skinny matrix: G = X^T X / N for X of shape (N, D); outputs O(1), TF32 tolerance."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "LinearAlgebra",
    "level": 1,
    "dtype": "float32",
    "flops": "2 * N * D * D",
    "bytes": "4 * (N * D + D * D)",
    "small": {"N": 300, "D": 40},
    "atol": 1e-2,
    "rtol": 1e-2,
}

N = 262144
D = 384


class Model(nn.Module):
    """G is symmetric; a kernel may compute one triangle and mirror it."""

    def __init__(self):
        super().__init__()

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        return (X.t() @ X) / X.shape[0]


def get_inputs():
    # correlated columns so that off-diagonal entries are not small; the factor 2 (4 on G) puts mean |G| near 0.3,
    # 30x the TF32 atol (diagonal ~8)
    base = torch.randn(N, D)
    mix = torch.randn(D, D) / D ** 0.5
    return [(base + base @ mix) * 2]


def get_init_inputs():
    return []
