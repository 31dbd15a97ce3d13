"""WaveNet residual block: x + Conv1x1(tanh(Conv_f(x)) * sigmoid(Conv_g(x))) with dilated causal kernel-2 convs."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "10 * N * C * C * L + 12 * N * C * L",
    "bytes": "4 * (2 * N * C * L + 5 * C * C + 3 * C)",
    "small": {"N": 2, "C": 8, "L": 40, "DIL": 3},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 16
C = 256
L = 8192
DIL = 4


class Model(nn.Module):
    """Filter and gate dilated causal convolutions, tanh * sigmoid gating, 1x1 output conv, residual add."""

    def __init__(self, channels, dilation):
        super().__init__()
        self.dilation = dilation
        self.filter = nn.Conv1d(channels, channels, 2, dilation=dilation)
        self.gate = nn.Conv1d(channels, channels, 2, dilation=dilation)
        self.out = nn.Conv1d(channels, channels, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xp = F.pad(x, (self.dilation, 0))
        z = torch.tanh(self.filter(xp)) * torch.sigmoid(self.gate(xp))
        return x + self.out(z)


def get_inputs():
    return [torch.randn(N, C, L)]


def get_init_inputs():
    return [C, DIL]
