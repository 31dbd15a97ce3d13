"""ResNeXt bottleneck block: 1x1 reduce, grouped 3x3 conv (CARD groups of BW channels), 1x1 expand, BN, identity residual."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * B * IMG * IMG * (2 * C * CARD * BW + 9 * CARD * BW * BW)",
    "bytes": "4 * (2 * B * C * IMG * IMG + 2 * C * CARD * BW + 9 * CARD * BW * BW + 8 * CARD * BW + 4 * C)",
    "small": {"B": 2, "C": 16, "CARD": 4, "BW": 2, "IMG": 8},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 128
C = 256
CARD = 32
BW = 4
IMG = 56


class Model(nn.Module):
    """relu(x + BN(conv1x1(relu(BN(gconv3x3(relu(BN(conv1x1(x))))))))), inference-mode BatchNorm."""

    def __init__(self, c: int, card: int, bw: int):
        super().__init__()
        width = card * bw
        self.reduce = nn.Conv2d(c, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.gconv = nn.Conv2d(width, width, 3, padding=1, groups=card, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.expand = nn.Conv2d(width, c, 1, bias=False)
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
        y = torch.relu(self.bn1(self.reduce(x)))
        y = torch.relu(self.bn2(self.gconv(y)))
        return torch.relu(x + self.bn3(self.expand(y)))


def get_inputs():
    return [torch.randn(B, C, IMG, IMG)]


def get_init_inputs():
    return [C, CARD, BW]
