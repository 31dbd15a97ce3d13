"""Vector-matrix product y = x @ B with a 1 x K row vector and a large K x N fp32 matrix."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "2 * K * N",
    "bytes": "4 * (K * N + K + N)",
    "small": {"K": 80, "N": 72},
    "atol": 1e-2, "rtol": 1e-2,
}

K = 32000
N = 61440


class Model(nn.Module):
    """Multiplies a row vector by a matrix."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(x, B)


def get_inputs():
    x = torch.randn(1, K) / K ** 0.5
    B = torch.randn(K, N)
    return [x, B]


def get_init_inputs():
    return []
