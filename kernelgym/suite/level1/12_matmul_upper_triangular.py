"""Product of two upper-triangular N x N fp32 matrices, returned as an upper-triangular matrix: triu(A @ B)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "N * N * N / 3",
    "bytes": "4 * (N * N + N * N)",
    "small": {"N": 36},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 3000


class Model(nn.Module):
    """Multiplies two upper-triangular matrices; only the upper triangle of the product is kept."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.triu(A @ B)


def get_inputs():
    A = torch.triu(torch.randn(N, N))
    B = torch.triu(torch.randn(N, N)) / N ** 0.5
    return [A, B]


def get_init_inputs():
    return []
