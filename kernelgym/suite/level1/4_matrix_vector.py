"""Matrix-vector product y = A @ x with a large M x K fp32 matrix and a K x 1 column vector."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "2 * M * K",
    "bytes": "4 * (M * K + K + M)",
    "small": {"M": 50, "K": 96},
    "atol": 1e-2, "rtol": 1e-2,
}

M = 60000
K = 32768


class Model(nn.Module):
    """Multiplies a matrix by a column vector."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, x)


def get_inputs():
    A = torch.randn(M, K)
    x = torch.randn(K, 1) / K ** 0.5
    return [A, x]


def get_init_inputs():
    return []
