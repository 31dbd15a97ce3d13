"""Product of two lower-triangular N x N fp32 matrices, returned as a lower-triangular matrix: tril(A @ B)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "N * N * N / 3",
    "bytes": "4 * (N * N + N * N)",
    "small": {"N": 40},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 4096


class Model(nn.Module):
    """Multiplies two lower-triangular matrices; only the lower triangle of the product is kept."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.tril(torch.matmul(A, B))


def get_inputs():
    A = torch.tril(torch.randn(N, N))
    B = torch.tril(torch.randn(N, N)) / N ** 0.5
    return [A, B]


def get_init_inputs():
    return []
