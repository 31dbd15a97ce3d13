"""Two ShuffleNet units: a stride-2 unit (concat with avg-pooled input) then a stride-1 unit (residual add)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * B * (IMG * IMG * C_IN * (C_OUT // 4) // G + (IMG // 2) ** 2 * (9 * (C_OUT // 4)"
             " + (C_OUT // 4) * (C_OUT - C_IN) // G + C_OUT * (C_OUT // 4) // G + 9 * (C_OUT // 4)"
             " + (C_OUT // 4) * C_OUT // G))",
    "bytes": "4 * (B * C_IN * IMG * IMG + B * C_OUT * (IMG // 2) ** 2 + (C_IN * (C_OUT // 4) + (C_OUT // 4)"
             " * (C_OUT - C_IN) + 2 * C_OUT * (C_OUT // 4)) // G + 18 * (C_OUT // 4))",
    "small": {"B": 2, "C_IN": 12, "C_OUT": 24, "IMG": 8},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 128
C_IN = 240
C_OUT = 480
G = 3
IMG = 56


def channel_shuffle(x: torch.Tensor, groups: int) -> torch.Tensor:
    b, c, h, w = x.shape
    return x.view(b, groups, c // groups, h, w).transpose(1, 2).reshape(b, c, h, w)


class ShuffleUnit(nn.Module):
    def __init__(self, cin: int, cout: int, mid: int, groups: int, stride: int):
        super().__init__()
        self.stride = stride
        self.groups = groups
        branch_out = cout - cin if stride == 2 else cout
        self.gconv1 = nn.Conv2d(cin, mid, 1, groups=groups, bias=False)
        self.bn1 = nn.BatchNorm2d(mid)
        self.dw = nn.Conv2d(mid, mid, 3, stride=stride, padding=1, groups=mid, bias=False)
        self.bn2 = nn.BatchNorm2d(mid)
        self.gconv2 = nn.Conv2d(mid, branch_out, 1, groups=groups, bias=False)
        self.bn3 = nn.BatchNorm2d(branch_out)

    def forward(self, x):
        y = torch.relu(self.bn1(self.gconv1(x)))
        y = channel_shuffle(y, self.groups)
        y = self.bn2(self.dw(y))
        y = self.bn3(self.gconv2(y))
        if self.stride == 2:
            return torch.relu(torch.cat([F.avg_pool2d(x, 3, stride=2, padding=1), y], dim=1))
        return torch.relu(x + y)


class Model(nn.Module):
    """ShuffleNet (g=G) units: C_IN -> C_OUT channels at half resolution, bottleneck C_OUT // 4."""

    def __init__(self, c_in: int, c_out: int, groups: int):
        super().__init__()
        self.unit1 = ShuffleUnit(c_in, c_out, c_out // 4, groups, 2)
        self.unit2 = ShuffleUnit(c_out, c_out, c_out // 4, groups, 1)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.uniform_(m.weight, 0.5, 1.5)
                nn.init.uniform_(m.bias, -0.2, 0.2)
                nn.init.uniform_(m.running_mean, -0.2, 0.2)
                nn.init.uniform_(m.running_var, 0.5, 1.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.unit2(self.unit1(x))


def get_inputs():
    return [torch.randn(B, C_IN, IMG, IMG)]


def get_init_inputs():
    return [C_IN, C_OUT, G]
