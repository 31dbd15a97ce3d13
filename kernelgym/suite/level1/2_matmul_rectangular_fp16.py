"""Rectangular fp16 matrix multiplication C = A @ B with odd sizes (M x K times K x N)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float16",
    "flops": "2 * M * N * K",
    "bytes": "2 * (M * K + K * N + M * N)",
    "small": {"M": 40, "K": 56, "N": 24},
}

M = 9999
K = 6000
N = 7000


class Model(nn.Module):
    """Multiplies a half-precision M x K matrix by a K x N matrix."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return A @ B


def get_inputs():
    A = torch.randn(M, K, dtype=torch.float16)
    B = torch.randn(K, N, dtype=torch.float16) / K ** 0.5
    return [A, B]


def get_init_inputs():
    return []
