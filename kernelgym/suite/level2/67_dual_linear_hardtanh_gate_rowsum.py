"""Two-input gated bilinear score per row: sum_n hardtanh(A x)_n * (B z)_n / sqrt(N); output (M,)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * M * N * (K1 + K2) + 4 * M * N",
    "bytes": "4 * (M * K1 + M * K2 + N * (K1 + K2) + 2 * N + M)",
    "small": {"M": 30, "K1": 48, "K2": 24, "N": 40},
    "atol": 1e-2, "rtol": 1e-2,
}

M = 4096
K1 = 2048
K2 = 1024
N = 4096


class Model(nn.Module):
    """Projects x and z with separate Linears, gates one with hardtanh, reduces their product per row."""

    def __init__(self, x_features, z_features, hidden):
        super().__init__()
        self.proj_x = nn.Linear(x_features, hidden)
        self.proj_z = nn.Linear(z_features, hidden)

    def forward(self, x: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
        prod = F.hardtanh(self.proj_x(x)) * self.proj_z(z)
        return prod.sum(dim=1) / prod.shape[1] ** 0.5


def get_inputs():
    return [torch.randn(M, K1) * 2, torch.randn(M, K2)]


def get_init_inputs():
    return [K1, K2, N]
