"""bf16 GeGLU projection then RMSNorm: rmsnorm(gelu(g) * u) * weight, where [g, u] = Linear(x) split in halves."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "bfloat16",
    "flops": "4 * M * D * H + 20 * M * H",
    "bytes": "2 * (M * D + 2 * H * D + 2 * H + H + M * H)",
    "small": {"M": 24, "D": 40, "H": 48},
}

M = 16384
D = 2048
H = 4096


class Model(nn.Module):
    """One Linear producing gate and value halves, exact-GELU gating, RMSNorm with a learned scale."""

    def __init__(self, d_model, hidden):
        super().__init__()
        self.proj = nn.Linear(d_model, 2 * hidden, dtype=torch.bfloat16)
        self.norm = nn.RMSNorm(hidden, eps=1e-6, dtype=torch.bfloat16)
        nn.init.uniform_(self.norm.weight, 0.5, 1.5)  # not the default ones: a kernel must read it

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        g, u = self.proj(x).chunk(2, dim=-1)
        return self.norm(F.gelu(g) * u)


def get_inputs():
    return [torch.randn(M, D, dtype=torch.bfloat16)]


def get_init_inputs():
    return [D, H]
