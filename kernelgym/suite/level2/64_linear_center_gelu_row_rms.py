"""Per-row RMS of gelu(y - mean(y)) where y = Linear(x), for rows of varying scale; output (M,)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * M * K * N + 16 * M * N",
    "bytes": "4 * (M * K + K * N + N + M)",
    "small": {"M": 40, "K": 32, "N": 56},
    "atol": 1e-2, "rtol": 1e-2,
}

M = 8192
K = 1024
N = 4096


class Model(nn.Module):
    """Linear, subtract the row mean, exact GELU, root-mean-square over the row."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.fc(x)
        y = F.gelu(y - y.mean(dim=1, keepdim=True))
        return y.pow(2).mean(dim=1).sqrt()


def get_inputs():
    return [torch.randn(M, K) * (3 * torch.rand(M, 1) + 0.2)]


def get_init_inputs():
    return [K, N]
