"""Two stacked GoogLeNet inception modules (1x1 | 1x1->3x3 | 1x1->5x5 | maxpool->1x1 branches, concatenated)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * B * IMG * IMG * U * U * (12 * 4 + 12 * 6 + 6 * 8 * 9 + 12 * 1 + 1 * 2 * 25 + 12 * 2"
             " + 16 * 8 + 16 * 8 + 8 * 12 * 9 + 16 * 2 + 2 * 6 * 25 + 16 * 4)",
    "bytes": "4 * (B * 12 * U * IMG * IMG + B * 30 * U * IMG * IMG + U * U * (12 * 4 + 12 * 6 + 6 * 8 * 9"
             " + 12 * 1 + 1 * 2 * 25 + 12 * 2 + 16 * 8 + 16 * 8 + 8 * 12 * 9 + 16 * 2 + 2 * 6 * 25 + 16 * 4))",
    "small": {"B": 2, "U": 1, "IMG": 8},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 160
U = 16
IMG = 28


def conv_relu(cin: int, cout: int, k: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, k, padding=k // 2), nn.ReLU())


class Inception(nn.Module):
    def __init__(self, cin, c1, c3r, c3, c5r, c5, cp):
        super().__init__()
        self.b1 = conv_relu(cin, c1, 1)
        self.b2 = nn.Sequential(conv_relu(cin, c3r, 1), conv_relu(c3r, c3, 3))
        self.b3 = nn.Sequential(conv_relu(cin, c5r, 1), conv_relu(c5r, c5, 5))
        self.b4 = nn.Sequential(nn.MaxPool2d(3, stride=1, padding=1), conv_relu(cin, cp, 1))

    def forward(self, x):
        return torch.cat([self.b1(x), self.b2(x), self.b3(x), self.b4(x)], dim=1)


class Model(nn.Module):
    """Inception 3a (12U -> 16U channels) then 3b (16U -> 30U channels), channel counts in units of U."""

    def __init__(self, u: int):
        super().__init__()
        self.inc_a = Inception(12 * u, 4 * u, 6 * u, 8 * u, u, 2 * u, 2 * u)
        self.inc_b = Inception(16 * u, 8 * u, 8 * u, 12 * u, 2 * u, 6 * u, 4 * u)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, nonlinearity="relu")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.inc_b(self.inc_a(x))


def get_inputs():
    return [torch.randn(B, 12 * U, IMG, IMG)]


def get_init_inputs():
    return [U]
