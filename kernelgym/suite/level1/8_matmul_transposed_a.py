"""fp32 matrix multiplication with the first operand transposed: C = A^T @ B, A stored as K x M."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "2 * M * N * K",
    "bytes": "4 * (M * K + K * N + M * N)",
    "small": {"M": 24, "N": 56, "K": 40},
    "atol": 1e-2, "rtol": 1e-2,
}

M = 3072
N = 2048
K = 4096


class Model(nn.Module):
    """Computes A.T @ B."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A.T, B)


def get_inputs():
    A = torch.randn(K, M)
    B = torch.randn(K, N) / K ** 0.5
    return [A, B]


def get_init_inputs():
    return []
