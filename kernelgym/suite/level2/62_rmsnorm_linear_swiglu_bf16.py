"""bf16 pre-norm SwiGLU up-projection: h = RMSNorm(x); silu(W_gate h) * (W_up h)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "bfloat16",
    "flops": "4 * M * D * H + 4 * M * D + 6 * M * H",
    "bytes": "2 * (M * D + D + 2 * D * H + M * H)",
    "small": {"M": 28, "D": 40, "H": 56},
    "atol": 1e-2, "rtol": 3e-2,
}

M = 16384
D = 2048
H = 5632


class Model(nn.Module):
    """RMSNorm with learned scale, two bias-free projections, SiLU-gated product."""

    def __init__(self, d_model, hidden):
        super().__init__()
        self.norm = nn.RMSNorm(d_model, eps=1e-5, dtype=torch.bfloat16)
        self.gate = nn.Linear(d_model, hidden, bias=False, dtype=torch.bfloat16)
        self.up = nn.Linear(d_model, hidden, bias=False, dtype=torch.bfloat16)
        with torch.no_grad():
            self.norm.weight.copy_(0.75 + 0.5 * torch.rand(d_model))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.norm(x)
        return F.silu(self.gate(h)) * self.up(h)


def get_inputs():
    return [torch.randn(M, D, dtype=torch.bfloat16) * (2 * torch.rand(M, 1, dtype=torch.bfloat16) + 0.1)]


def get_init_inputs():
    return [D, H]
