"""MobileNetV2 inverted residual block: 1x1 expand + BN + ReLU6, 3x3 depthwise + BN + ReLU6, 1x1 project + BN, residual add."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * B * IMG * IMG * (2 * C * EXPAND * C + 9 * EXPAND * C)",
    "bytes": "4 * (2 * B * C * IMG * IMG + 2 * EXPAND * C * C + 9 * EXPAND * C + 8 * EXPAND * C + 4 * C)",
    "small": {"B": 2, "C": 8, "IMG": 8},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 64
C = 64
EXPAND = 6
IMG = 56


class Model(nn.Module):
    """x + BN(W_proj * ReLU6(BN(DW3x3(ReLU6(BN(W_exp * x)))))) with inference-mode BatchNorm."""

    def __init__(self, c: int, expand: int):
        super().__init__()
        hidden = expand * c
        self.expand = nn.Conv2d(c, hidden, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(hidden)
        self.dw = nn.Conv2d(hidden, hidden, 3, padding=1, groups=hidden, bias=False)
        self.bn2 = nn.BatchNorm2d(hidden)
        self.project = nn.Conv2d(hidden, c, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(c)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.uniform_(m.weight, 0.5, 1.5)
                nn.init.uniform_(m.bias, -0.2, 0.2)
                nn.init.uniform_(m.running_mean, -0.2, 0.2)
                nn.init.uniform_(m.running_var, 0.5, 1.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.clamp(self.bn1(self.expand(x)), 0.0, 6.0)
        y = torch.clamp(self.bn2(self.dw(y)), 0.0, 6.0)
        return x + self.bn3(self.project(y))


def get_inputs():
    return [torch.randn(B, C, IMG, IMG)]


def get_init_inputs():
    return [C, EXPAND]
