"""fp32 matrix multiplication with the second operand transposed: C = A @ B^T, B stored as N x K."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "2 * M * N * K",
    "bytes": "4 * (M * K + K * N + M * N)",
    "small": {"M": 36, "N": 28, "K": 48},
    "atol": 1e-2, "rtol": 1e-2,
}

M = 4096
N = 2880
K = 3584


class Model(nn.Module):
    """Computes A @ B.T."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B.T)


def get_inputs():
    A = torch.randn(M, K)
    B = torch.randn(N, K) / K ** 0.5
    return [A, B]


def get_init_inputs():
    return []
