"""fp16 squared-ReLU MLP with residual (Primer-style): x + W2 relu(W1 x + b1)^2 + b2."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float16",
    "flops": "4 * M * D * H + 3 * M * H + 2 * M * D",
    "bytes": "2 * (2 * M * D + 2 * D * H + H + D)",
    "small": {"M": 24, "D": 32, "H": 72},
}

M = 16384
D = 2048
H = 8192


class Model(nn.Module):
    """Up-projection, squared ReLU, down-projection, residual add, in half precision."""

    def __init__(self, d_model, hidden):
        super().__init__()
        self.up = nn.Linear(d_model, hidden, dtype=torch.float16)
        self.down = nn.Linear(hidden, d_model, dtype=torch.float16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.down(torch.relu(self.up(x)).square())


def get_inputs():
    return [torch.randn(M, D, dtype=torch.float16)]


def get_init_inputs():
    return [D, H]
