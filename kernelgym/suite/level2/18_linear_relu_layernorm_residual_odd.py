"""Square linear layer at odd sizes, ReLU, LayerNorm and a residual add of the input (pre-activation block)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * M * D * D + 12 * M * D",
    "bytes": "4 * (M * D + D * D + 3 * D + M * D)",
    "small": {"M": 37, "D": 45},
    "atol": 1e-2, "rtol": 1e-2,
}

M = 12007
D = 1500


class Model(nn.Module):
    """out = x + LayerNorm(relu(x @ W^T + b)) with a learned affine."""

    def __init__(self, dim):
        super().__init__()
        self.linear = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim, eps=1e-5)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.uniform_(-0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.norm(torch.relu(self.linear(x)))


def get_inputs():
    return [torch.randn(M, D)]


def get_init_inputs():
    return [D]
