"""Post-norm residual projection: relu(LayerNorm(Linear(x) + residual)) with a second residual input."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * M * K * N + 10 * M * N",
    "bytes": "4 * (M * K + K * N + 3 * N + 2 * M * N)",
    "small": {"M": 40, "K": 48, "N": 36},
    "atol": 1e-2, "rtol": 1e-2,
}

M = 8192
K = 3072
N = 1536


class Model(nn.Module):
    """Linear, add residual, LayerNorm over features, ReLU."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)
        self.norm = nn.LayerNorm(out_features)
        nn.init.uniform_(self.norm.weight, 0.5, 1.5)  # not the defaults (1, 0): a kernel must read them
        nn.init.uniform_(self.norm.bias, -0.5, 0.5)

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.norm(self.fc(x) + residual))


def get_inputs():
    return [torch.randn(M, K), torch.randn(M, N)]


def get_init_inputs():
    return [K, N]
