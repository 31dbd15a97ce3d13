"""fp32 matrix multiplication with both operands transposed: C = A^T @ B^T, A stored as K x M and B as N x K."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "2 * M * N * K",
    "bytes": "4 * (M * K + K * N + M * N)",
    "small": {"M": 40, "N": 20, "K": 32},
    "atol": 1e-2, "rtol": 1e-2,
}

M = 2304
N = 3840
K = 3072


class Model(nn.Module):
    """Computes A.T @ B.T."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A.T, B.T)


def get_inputs():
    A = torch.randn(K, M)
    B = torch.randn(N, K) / K ** 0.5
    return [A, B]


def get_init_inputs():
    return []
