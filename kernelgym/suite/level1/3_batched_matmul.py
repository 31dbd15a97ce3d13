"""Batched fp32 matrix multiplication: C[b] = A[b] @ B[b] for a batch of independent products."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "2 * BATCH * M * N * K",
    "bytes": "4 * BATCH * (M * K + K * N + M * N)",
    "small": {"BATCH": 3, "M": 20, "K": 36, "N": 28},
    "atol": 1e-2, "rtol": 1e-2,
}

BATCH = 192
M = 384
K = 640
N = 512


class Model(nn.Module):
    """Batched matrix multiply (torch.bmm)."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.bmm(A, B)


def get_inputs():
    A = torch.randn(BATCH, M, K)
    B = torch.randn(BATCH, K, N) / K ** 0.5
    return [A, B]


def get_init_inputs():
    return []
