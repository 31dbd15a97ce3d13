"""fp16 MLP with LayerNorm on the hidden layer: W2 gelu(LayerNorm(W1 x + b1)) + b2."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float16",
    "flops": "2 * M * H * (K + N) + 20 * M * H",
    "bytes": "2 * (M * K + K * H + 3 * H + H * N + N + M * N)",
    "small": {"M": 24, "K": 40, "H": 64, "N": 36},
}

M = 32768
K = 1024
H = 4096
N = 1024


class Model(nn.Module):
    """Linear up, LayerNorm, exact GELU, Linear down, in half precision."""

    def __init__(self, in_features, hidden, out_features):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden, dtype=torch.float16)
        self.norm = nn.LayerNorm(hidden, dtype=torch.float16)
        self.fc2 = nn.Linear(hidden, out_features, dtype=torch.float16)
        nn.init.uniform_(self.norm.weight, 0.5, 1.5)  # not the defaults (1, 0): a kernel must read them
        nn.init.uniform_(self.norm.bias, -0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(F.gelu(self.norm(self.fc1(x))))


def get_inputs():
    return [torch.randn(M, K, dtype=torch.float16)]


def get_init_inputs():
    return [K, H, N]
