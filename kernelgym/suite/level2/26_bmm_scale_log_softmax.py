"""Batched matmul (attention-style scores), 1/sqrt(K) scaling and a log-softmax over the last dimension."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * B * M * N * K + 5 * B * M * N",
    "bytes": "4 * (B * M * K + B * K * N + B * M * N)",
    "small": {"B": 2, "M": 24, "K": 32, "N": 40},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 128
M = 1024
K = 256
N = 1024


class Model(nn.Module):
    """out = log_softmax(bmm(a, b) / sqrt(K), dim=-1); a: (B, M, K), b: (B, K, N)."""

    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        s = torch.bmm(a, b) * (a.shape[-1] ** -0.5)
        return torch.log_softmax(s, dim=-1)


def get_inputs():
    return [torch.randn(B, M, K), torch.randn(B, K, N)]


def get_init_inputs():
    return []
