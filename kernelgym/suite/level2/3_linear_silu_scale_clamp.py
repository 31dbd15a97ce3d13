"""bf16 linear layer, SiLU, a learned per-feature scale and a clamp."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "bfloat16",
    "flops": "2 * M * N * K + 7 * M * N",
    "bytes": "2 * (M * K + N * K + 2 * N + M * N)",
    "small": {"M": 40, "K": 64, "N": 48},
}

M = 8192
K = 4096
N = 8192
CLAMP_MIN = -0.2
CLAMP_MAX = 1.0


class Model(nn.Module):
    """out = clamp(silu(x @ W^T + b) * s, CLAMP_MIN, CLAMP_MAX) with a learned per-feature scale s."""

    def __init__(self, in_features, out_features, clamp_min, clamp_max):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = nn.Parameter(torch.rand(out_features) + 0.5)
        self.clamp_min = clamp_min
        self.clamp_max = clamp_max

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.silu(self.linear(x)) * self.scale
        return torch.clamp(y, self.clamp_min, self.clamp_max)


def get_inputs():
    return [torch.randn(M, K, dtype=torch.bfloat16)]


def get_init_inputs():
    return [K, N, CLAMP_MIN, CLAMP_MAX]
