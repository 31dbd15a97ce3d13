"""Decoder step: ConvTranspose1d (stride 2) to 2C channels, GLU over channels, add a skip input, ReLU."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "4 * N * CIN * C * 4 * L + 10 * N * C * L",
    "bytes": "4 * (N * CIN * L + 8 * CIN * C + 2 * C + 4 * N * C * L)",
    "small": {"N": 2, "CIN": 8, "C": 6, "L": 16},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 128
CIN = 256
C = 128
L = 2048


class Model(nn.Module):
    """Length-doubling transposed convolution, GLU gating on channels, skip-connection add, ReLU."""

    def __init__(self, in_channels, channels):
        super().__init__()
        self.deconv = nn.ConvTranspose1d(in_channels, 2 * channels, 4, stride=2, padding=1)

    def forward(self, x: torch.Tensor, skip: torch.Tensor) -> torch.Tensor:
        return torch.relu(F.glu(self.deconv(x), dim=1) + skip)


def get_inputs():
    return [torch.randn(N, CIN, L), torch.randn(N, C, 2 * L)]


def get_init_inputs():
    return [CIN, C]
