"""Batched-sequence matmul with a shared learned weight, tanh, then a sum over the sequence dimension."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * B * S * N * K + 5 * B * S * N",
    "bytes": "4 * (B * S * K + K * N + B * N)",
    "small": {"B": 3, "S": 20, "K": 32, "N": 40},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 32
S = 512
K = 1024
N = 2048


class Model(nn.Module):
    """x: (B, S, K); out[b, n] = sum_s tanh(x @ W)[b, s, n]; output shape (B, N)."""

    def __init__(self, k, n):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(k, n) / k ** 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(torch.matmul(x, self.weight)).sum(dim=1)


def get_inputs():
    return [torch.randn(B, S, K)]


def get_init_inputs():
    return [K, N]
