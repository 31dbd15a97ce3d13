"""fp16 matmul against the transpose of a learned (N, K) weight, SiLU, then a clamp."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float16",
    "flops": "2 * M * N * K + 6 * M * N",
    "bytes": "2 * (M * K + N * K + M * N)",
    "small": {"M": 24, "K": 64, "N": 40},
}

M = 8192
K = 8192
N = 8192
CLAMP_MIN = -0.25
CLAMP_MAX = 2.0


class Model(nn.Module):
    """out = clamp(silu(x @ W^T), CLAMP_MIN, CLAMP_MAX) with W of shape (N, K)."""

    def __init__(self, k, n, clamp_min, clamp_max):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n, k) / k ** 0.5)
        self.clamp_min = clamp_min
        self.clamp_max = clamp_max

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.silu(torch.matmul(x, self.weight.t()))
        return torch.clamp(y, self.clamp_min, self.clamp_max)


def get_inputs():
    return [torch.randn(M, K, dtype=torch.float16)]


def get_init_inputs():
    return [K, N, CLAMP_MIN, CLAMP_MAX]
