"""Linear layer followed by exact (erf) GELU and a LayerNorm over the output features."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * M * N * K + 18 * M * N",
    "bytes": "4 * (M * K + N * K + 3 * N + M * N)",
    "small": {"M": 32, "K": 48, "N": 64},
    "atol": 1e-2, "rtol": 1e-2,
}

M = 8192
K = 1536
N = 3072


class Model(nn.Module):
    """out = LayerNorm(gelu(x @ W^T + b)) with a learned affine."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.norm = nn.LayerNorm(out_features, eps=1e-5)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.uniform_(-0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(F.gelu(self.linear(x)))


def get_inputs():
    return [torch.randn(M, K)]


def get_init_inputs():
    return [K, N]
