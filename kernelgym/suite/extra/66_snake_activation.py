"""Snake activation (BigVGAN) with a learned per-channel frequency: y = x + sin(alpha_c * x)^2 / (alpha_c + 1e-9), x of shape (B, C, T)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Activation",
    "level": 1,
    "dtype": "float32",
    "flops": "6 * B * C * T",
    "bytes": "4 * (2 * B * C * T + C)",
    "small": {"B": 2, "C": 8, "T": 200},
}

B = 16
C = 512
T = 32768


class Model(nn.Module):
    """Periodic activation for audio generators."""

    def __init__(self, channels: int):
        super().__init__()
        self.alpha = nn.Parameter(torch.rand(channels) * 1.5 + 0.25)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a = self.alpha.view(1, -1, 1)
        return x + torch.sin(a * x) ** 2 / (a + 1e-9)


def get_inputs():
    return [torch.randn(B, C, T) * 2.0]


def get_init_inputs():
    return [C]
