"""Linear layer on rows of varying scale, ReLU, subtraction of each row's mean, then GELU."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * M * N * K + 13 * M * N",
    "bytes": "4 * (M * K + N * K + N + M * N)",
    "small": {"M": 40, "K": 64, "N": 24},
    "atol": 1e-2, "rtol": 1e-2,
}

M = 4096
K = 4096
N = 2048


class Model(nn.Module):
    """y = relu(x @ W^T + b); out = gelu(y - mean(y, dim=1, keepdim=True))."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.linear(x))
        return F.gelu(y - y.mean(dim=1, keepdim=True))


def get_inputs():
    # rows with different norms, so the row means differ from row to row
    return [torch.randn(M, K) * (0.25 + 2.0 * torch.rand(M, 1))]


def get_init_inputs():
    return [K, N]
