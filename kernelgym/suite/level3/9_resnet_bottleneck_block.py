"""ResNet bottleneck block (1x1 -> strided 3x3 -> 1x1 x4 expansion) with projection shortcut, inference-mode BN."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * B * (IMG * IMG * WIDTH * C_IN + (IMG // 2) ** 2 * (WIDTH * WIDTH * 9 + 4 * WIDTH * WIDTH"
             " + 4 * WIDTH * C_IN))",
    "bytes": "4 * (B * C_IN * IMG * IMG + B * 4 * WIDTH * (IMG // 2) ** 2 + WIDTH * C_IN + 9 * WIDTH * WIDTH"
             " + 4 * WIDTH * WIDTH + 4 * WIDTH * C_IN + 4 * 14 * WIDTH)",
    "small": {"B": 2, "C_IN": 8, "WIDTH": 4, "IMG": 8},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 128
C_IN = 256
WIDTH = 128
IMG = 56


class Model(nn.Module):
    """Bottleneck (stride 2 in the 3x3 conv) producing 4*WIDTH channels at half resolution."""

    def __init__(self, c_in: int, width: int):
        super().__init__()
        c_out = 4 * width
        self.conv1 = nn.Conv2d(c_in, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride=2, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, c_out, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(c_out)
        self.down = nn.Sequential(nn.Conv2d(c_in, c_out, 1, stride=2, bias=False), nn.BatchNorm2d(c_out))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.uniform_(m.weight, 0.5, 1.5)
                nn.init.uniform_(m.bias, -0.2, 0.2)
                nn.init.uniform_(m.running_mean, -0.2, 0.2)
                nn.init.uniform_(m.running_var, 0.5, 1.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.relu(self.bn1(self.conv1(x)))
        out = torch.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return torch.relu(out + self.down(x))


def get_inputs():
    return [torch.randn(B, C_IN, IMG, IMG)]


def get_init_inputs():
    return [C_IN, WIDTH]
