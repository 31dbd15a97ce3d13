"""fp32 product of a tall-skinny M x K matrix and a short-wide K x N matrix (K small): a large low-rank output."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "2 * M * N * K",
    "bytes": "4 * (M * K + K * N + M * N)",
    "small": {"M": 60, "N": 44, "K": 16},
    "atol": 1e-2, "rtol": 1e-2,
}

M = 20000
N = 18000
K = 64


class Model(nn.Module):
    """Multiplies a tall-skinny matrix by a short-wide one."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


def get_inputs():
    A = torch.randn(M, K)
    B = torch.randn(K, N) / K ** 0.5
    return [A, B]


def get_init_inputs():
    return []
