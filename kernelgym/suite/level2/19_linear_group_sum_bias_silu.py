"""fp16 linear layer, sum over contiguous groups of output features, a learned bias add, then SiLU."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float16",
    "flops": "2 * M * N * K + M * N + 5 * M * GROUPS",
    "bytes": "2 * (M * K + N * K + N + GROUPS + M * GROUPS)",
    "small": {"M": 40, "K": 48, "N": 64, "GROUPS": 8},
}

M = 32768
K = 4096
N = 4096
GROUPS = 64


class Model(nn.Module):
    """y = x @ W^T + b viewed as (M, GROUPS, N // GROUPS); out = silu(y.sum(-1) + c); shape (M, GROUPS)."""

    def __init__(self, in_features, out_features, groups):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.group_bias = nn.Parameter(torch.randn(groups))
        self.groups = groups

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.linear(x)
        y = y.view(y.shape[0], self.groups, -1).sum(dim=-1)
        return F.silu(y + self.group_bias)


def get_inputs():
    return [torch.randn(M, K, dtype=torch.float16)]


def get_init_inputs():
    return [K, N, GROUPS]
