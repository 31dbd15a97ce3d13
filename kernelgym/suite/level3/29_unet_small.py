"""Small UNet: three-level encoder/decoder of double 3x3 conv-BN-ReLU blocks, max-pool down, transposed-conv up, skip concats."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * B * IMG * IMG * (9 * (C_IN * BASE + BASE * BASE) + 9 * (2 * BASE * BASE + BASE * BASE)"
             " + BASE * OUT_CH)"
             " + 2 * B * (IMG // 2) ** 2 * (9 * (BASE * 2 * BASE + 4 * BASE * BASE) + 9 * (8 * BASE * BASE"
             " + 4 * BASE * BASE) + 4 * 2 * BASE * BASE)"
             " + 2 * B * (IMG // 4) ** 2 * (9 * (2 * BASE * 4 * BASE + 16 * BASE * BASE) + 4 * 4 * BASE * 2 * BASE)",
    "bytes": "4 * (B * C_IN * IMG * IMG + B * OUT_CH * IMG * IMG + 9 * (C_IN * BASE + BASE * BASE"
             " + 2 * BASE * BASE + BASE * BASE + BASE * 2 * BASE + 4 * BASE * BASE + 8 * BASE * BASE"
             " + 4 * BASE * BASE + 8 * BASE * BASE + 16 * BASE * BASE) + 4 * (8 * BASE * BASE + 2 * BASE * BASE)"
             " + BASE * OUT_CH)",
    "small": {"B": 1, "IMG": 16, "BASE": 4},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 32
C_IN = 3
OUT_CH = 2
IMG = 128
BASE = 32


def double_conv(cin: int, cout: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
        nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
    )


class Model(nn.Module):
    """Channels BASE, 2*BASE, 4*BASE (bottleneck at IMG/4); output [B, OUT_CH, IMG, IMG]."""

    def __init__(self, c_in: int, base: int, out_ch: int):
        super().__init__()
        b = base
        self.enc1 = double_conv(c_in, b)
        self.enc2 = double_conv(b, 2 * b)
        self.bottleneck = double_conv(2 * b, 4 * b)
        self.pool = nn.MaxPool2d(2)
        self.up2 = nn.ConvTranspose2d(4 * b, 2 * b, 2, stride=2)
        self.dec2 = double_conv(4 * b, 2 * b)
        self.up1 = nn.ConvTranspose2d(2 * b, b, 2, stride=2)
        self.dec1 = double_conv(2 * b, b)
        self.head = nn.Conv2d(b, out_ch, 1)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
            elif isinstance(m, nn.ConvTranspose2d):
                nn.init.normal_(m.weight, std=m.weight.shape[0] ** -0.5)
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.uniform_(m.weight, 0.5, 1.5)
                nn.init.uniform_(m.bias, -0.2, 0.2)
                nn.init.uniform_(m.running_mean, -0.2, 0.2)
                nn.init.uniform_(m.running_var, 0.5, 1.5)
        nn.init.normal_(self.head.weight, std=b ** -0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        e1 = self.enc1(x)
        e2 = self.enc2(self.pool(e1))
        z = self.bottleneck(self.pool(e2))
        d2 = self.dec2(torch.cat([self.up2(z), e2], dim=1))
        d1 = self.dec1(torch.cat([self.up1(d2), e1], dim=1))
        return self.head(d1)


def get_inputs():
    return [torch.randn(B, C_IN, IMG, IMG)]


def get_init_inputs():
    return [C_IN, BASE, OUT_CH]
