"""EfficientNet MBConv block: 1x1 expand + BN + SiLU, 5x5 depthwise + BN + SiLU, squeeze-excite, 1x1 project + BN, residual."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * B * IMG * IMG * (2 * C * EXPAND * C + 25 * EXPAND * C) + 4 * B * EXPAND * C * (C // 4)",
    "bytes": "4 * (2 * B * C * IMG * IMG + 2 * EXPAND * C * C + 25 * EXPAND * C + 2 * EXPAND * C * (C // 4)"
             " + 10 * EXPAND * C + 5 * C)",
    "small": {"B": 2, "C": 8, "IMG": 8},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 256
C = 80
EXPAND = 6
IMG = 32


class Model(nn.Module):
    """MBConv (expansion EXPAND, kernel 5, stride 1) with SE reduction to C // 4 channels."""

    def __init__(self, c: int, expand: int):
        super().__init__()
        hidden = expand * c
        self.expand = nn.Conv2d(c, hidden, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(hidden)
        self.dw = nn.Conv2d(hidden, hidden, 5, padding=2, groups=hidden, bias=False)
        self.bn2 = nn.BatchNorm2d(hidden)
        self.se_reduce = nn.Conv2d(hidden, c // 4, 1)
        self.se_expand = nn.Conv2d(c // 4, hidden, 1)
        self.project = nn.Conv2d(hidden, c, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(c)
        self.act = nn.SiLU()
        for m in (self.expand, self.dw, self.project):
            nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
        for m in self.modules():
            if isinstance(m, nn.BatchNorm2d):
                nn.init.uniform_(m.weight, 0.5, 1.5)
                nn.init.uniform_(m.bias, -0.2, 0.2)
                nn.init.uniform_(m.running_mean, -0.2, 0.2)
                nn.init.uniform_(m.running_var, 0.5, 1.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.act(self.bn1(self.expand(x)))
        y = self.act(self.bn2(self.dw(y)))
        s = y.mean(dim=(2, 3), keepdim=True)
        s = torch.sigmoid(self.se_expand(self.act(self.se_reduce(s))))
        y = self.bn3(self.project(y * s))
        return x + y


def get_inputs():
    return [torch.randn(B, C, IMG, IMG)]


def get_init_inputs():
    return [C, EXPAND]
