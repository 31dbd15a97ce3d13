"""SwiGLU feed-forward block with residual: x + W_down(silu(W_gate x) * (W_up x)), three bias-free Linears."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "6 * M * D * H + 6 * M * H + M * D",
    "bytes": "4 * (2 * M * D + 3 * D * H)",
    "small": {"M": 33, "D": 32, "H": 48},
    "atol": 1e-2, "rtol": 1e-2,
}

M = 4096
D = 1024
H = 2816


class Model(nn.Module):
    """Gate and up projections, SiLU-gated product, down projection, residual add."""

    def __init__(self, d_model, hidden):
        super().__init__()
        self.gate = nn.Linear(d_model, hidden, bias=False)
        self.up = nn.Linear(d_model, hidden, bias=False)
        self.down = nn.Linear(hidden, d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.down(F.silu(self.gate(x)) * self.up(x))


def get_inputs():
    return [torch.randn(M, D)]


def get_init_inputs():
    return [D, H]
