"""ResNet basic block with stride 2 and a 1x1-conv + BN projection shortcut (inference-mode BatchNorm)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * B * (IMG // 2) ** 2 * (C_OUT * C_IN * 9 + C_OUT * C_OUT * 9 + C_OUT * C_IN)",
    "bytes": "4 * (B * C_IN * IMG * IMG + B * C_OUT * (IMG // 2) ** 2 + C_OUT * C_IN * 10 + C_OUT * C_OUT * 9"
             " + 12 * C_OUT)",
    "small": {"B": 2, "C_IN": 4, "C_OUT": 8, "IMG": 8},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 192
C_IN = 128
C_OUT = 256
IMG = 56


class Model(nn.Module):
    """relu(bn2(conv2(relu(bn1(conv1_s2(x))))) + bn_ds(conv1x1_s2(x)))."""

    def __init__(self, c_in: int, c_out: int):
        super().__init__()
        self.conv1 = nn.Conv2d(c_in, c_out, 3, stride=2, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c_out)
        self.conv2 = nn.Conv2d(c_out, c_out, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c_out)
        self.down_conv = nn.Conv2d(c_in, c_out, 1, stride=2, bias=False)
        self.down_bn = nn.BatchNorm2d(c_out)
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
        out = self.bn2(self.conv2(out))
        return torch.relu(out + self.down_bn(self.down_conv(x)))


def get_inputs():
    return [torch.randn(B, C_IN, IMG, IMG)]


def get_init_inputs():
    return [C_IN, C_OUT]
