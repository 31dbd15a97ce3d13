"""Linear layer producing 2H features, a gated linear unit (first half times sigmoid of second half), scaled."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * M * N * K + 3 * M * N",
    "bytes": "4 * (M * K + N * K + N + M * (N // 2))",
    "small": {"M": 40, "K": 48, "N": 64},
    "atol": 1e-2, "rtol": 1e-2,
}

M = 8192
K = 2048
N = 4096
SCALE = 2.0


class Model(nn.Module):
    """y = x @ W^T + b (N = 2H features); out = y[:, :H] * sigmoid(y[:, H:]) * SCALE; shape (M, H)."""

    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a, g = self.linear(x).chunk(2, dim=1)
        return a * torch.sigmoid(g) * self.scale


def get_inputs():
    return [torch.randn(M, K)]


def get_init_inputs():
    return [K, N, SCALE]
