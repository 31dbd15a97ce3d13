"""bf16 linear layer, tanh, then a learned per-feature scale and bias add."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Fusion",
    "dtype": "bfloat16",
    "flops": "2 * M * N * K + 7 * M * N",
    "bytes": "2 * (M * K + N * K + 3 * N + M * N)",
    "small": {"M": 48, "K": 56, "N": 40},
}

M = 12288
K = 8192
N = 4096


class Model(nn.Module):
    """out = tanh(x @ W^T + b) * gamma + beta."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.gamma = nn.Parameter(torch.rand(out_features) * 2.0 + 0.5)
        self.beta = nn.Parameter(torch.randn(out_features) * 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.linear(x)) * self.gamma + self.beta


def get_inputs():
    return [torch.randn(M, K, dtype=torch.bfloat16)]


def get_init_inputs():
    return [K, N]
