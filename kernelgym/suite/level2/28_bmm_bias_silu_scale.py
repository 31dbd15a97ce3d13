"""fp16 batched matmul, learned bias add, SiLU and a learned per-column scale."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float16",
    "flops": "2 * B * M * N * K + 6 * B * M * N",
    "bytes": "2 * (B * M * K + B * K * N + 2 * N + B * M * N)",
    "small": {"B": 3, "M": 24, "K": 40, "N": 36},
}

B = 64
M = 2048
K = 1024
N = 2048


class Model(nn.Module):
    """out = silu(bmm(a, b) + bias) * scale; a: (B, M, K), b: (B, K, N), bias and scale: (N,)."""

    def __init__(self, n):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(n) * 0.5)
        self.scale = nn.Parameter(torch.rand(n) + 0.5)

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return F.silu(torch.bmm(a, b) + self.bias) * self.scale


def get_inputs():
    return [torch.randn(B, M, K, dtype=torch.float16), torch.randn(B, K, N, dtype=torch.float16) / K ** 0.5]


def get_init_inputs():
    return [N]
