"""Batched matmul, learned bias add, LayerNorm over the last dimension and ReLU."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * B * M * N * K + 11 * B * M * N",
    "bytes": "4 * (B * M * K + B * K * N + 3 * N + B * M * N)",
    "small": {"B": 2, "M": 20, "K": 32, "N": 48},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 16
M = 2048
K = 1024
N = 1024


class Model(nn.Module):
    """out = relu(LayerNorm(bmm(a, b) + bias)); a: (B, M, K), b: (B, K, N)."""

    def __init__(self, n):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(n) * 0.5)
        self.norm = nn.LayerNorm(n, eps=1e-5)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.uniform_(-0.5, 0.5)

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.norm(torch.bmm(a, b) + self.bias))


def get_inputs():
    return [torch.randn(B, M, K), torch.randn(B, K, N) / K ** 0.5]


def get_init_inputs():
    return [N]
