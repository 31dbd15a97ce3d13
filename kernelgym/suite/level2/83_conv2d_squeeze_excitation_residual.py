"""Conv2d with squeeze-and-excitation gate and residual: y = conv(x); y * sigmoid(W2 relu(W1 mean_hw(y))) + x."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * N * C * C * 9 * HW * HW + 4 * N * C * HW * HW + 4 * N * C * R",
    "bytes": "4 * (2 * N * C * HW * HW + 9 * C * C + 2 * C * R + 2 * C + R)",
    "small": {"N": 2, "C": 8, "HW": 8, "R": 3},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 160
C = 128
HW = 64
R = 32


class Model(nn.Module):
    """3x3 conv, global average squeeze, two-layer excitation MLP, channel-wise sigmoid scaling, residual."""

    def __init__(self, channels, reduced):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.fc1 = nn.Linear(channels, reduced)
        self.fc2 = nn.Linear(reduced, channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)
        s = torch.sigmoid(self.fc2(torch.relu(self.fc1(y.mean(dim=(2, 3))))))
        return y * s[:, :, None, None] + x


def get_inputs():
    return [torch.randn(N, C, HW, HW) + torch.randn(N, C, 1, 1)]


def get_init_inputs():
    return [C, R]
