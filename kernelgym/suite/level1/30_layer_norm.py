"""LayerNorm over the last (hidden) dimension of a BATCH x S x D fp32 tensor, with learned weight and bias."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Normalization",
    "dtype": "float32",
    "flops": "8 * BATCH * S * D",
    "bytes": "2 * BATCH * S * D * 4 + 2 * D * 4",
    "small": {"BATCH": 2, "S": 6, "D": 80},
}

BATCH = 16
S = 4096
D = 5120


class Model(nn.Module):
    """nn.LayerNorm(D) with randomly initialised affine parameters."""

    def __init__(self, hidden: int, eps: float = 1e-5):
        super().__init__()
        self.norm = nn.LayerNorm(hidden, eps=eps)
        with torch.no_grad():
            self.norm.weight.copy_(1.0 + 0.5 * torch.randn(hidden))
            self.norm.bias.copy_(0.5 * torch.randn(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x)


def get_inputs():
    return [torch.randn(BATCH, S, D) * 2 + 0.5]


def get_init_inputs():
    return [D]
