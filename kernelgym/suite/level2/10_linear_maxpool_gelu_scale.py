"""Linear layer, 1-D max pooling over neighbouring output features, GELU and a constant scale."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * M * N * K + M * N + 10 * M * (N // POOL)",
    "bytes": "4 * (M * K + N * K + N + M * (N // POOL))",
    "small": {"M": 36, "K": 32, "N": 48},
    "atol": 1e-2, "rtol": 1e-2,
}

M = 8192
K = 1024
N = 4096
POOL = 4
SCALE = 2.0


class Model(nn.Module):
    """out = gelu(max_pool1d(x @ W^T + b, POOL)) * SCALE; output shape (M, N // POOL)."""

    def __init__(self, in_features, out_features, pool, scale):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.pool = nn.MaxPool1d(pool)
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.pool(self.linear(x).unsqueeze(1)).squeeze(1)
        return F.gelu(y) * self.scale


def get_inputs():
    return [torch.randn(M, K)]


def get_init_inputs():
    return [K, N, POOL, SCALE]
