"""Diagonal matrix times dense matrix, diag(d) @ B, written with an explicit N x N diagonal matrix (fp32)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "N * M",
    "bytes": "4 * (N + 2 * N * M)",
    "small": {"N": 24, "M": 40},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 4096
M = 6144


class Model(nn.Module):
    """Scales the rows of B by d via a dense diagonal matrix product."""

    def __init__(self):
        super().__init__()

    def forward(self, d: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.diag(d) @ B


def get_inputs():
    d = torch.randn(N)
    B = torch.randn(N, M)
    return [d, B]


def get_init_inputs():
    return []
