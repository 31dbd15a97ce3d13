"""fp32 matrix multiplication with a very long inner dimension and small outputs: (M x K) @ (K x N), K >> M, N."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "2 * M * N * K",
    "bytes": "4 * (M * K + K * N + M * N)",
    "small": {"M": 16, "N": 24, "K": 512},
    "atol": 1e-2, "rtol": 1e-2,
}

M = 256
N = 256
K = 524288


class Model(nn.Module):
    """Matrix multiply whose reduction dimension is much longer than its output dimensions."""

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
