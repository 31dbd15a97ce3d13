"""Square fp32 matrix multiplication C = A @ B with N x N operands."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "2 * N * N * N",
    "bytes": "3 * N * N * 4",
    "small": {"N": 48},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 4096


class Model(nn.Module):
    """Multiplies two square matrices."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


def get_inputs():
    A = torch.randn(N, N)
    B = torch.randn(N, N) / N ** 0.5
    return [A, B]


def get_init_inputs():
    return []
