"""Small SqueezeNet: strided stem, max-pools and five Fire modules (squeeze 1x1, expand 1x1 || 3x3), conv classifier."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * B * ((IMG // 2) ** 2 * 27 * 4 * BASE"
             " + (IMG // 4) ** 2 * (4 * BASE * BASE + 10 * BASE * 4 * BASE + 8 * BASE * BASE + 10 * BASE * 4 * BASE"
             " + 8 * BASE * 2 * BASE + 20 * BASE * 8 * BASE)"
             " + (IMG // 8) ** 2 * (16 * BASE * 2 * BASE + 20 * BASE * 8 * BASE + 16 * BASE * 3 * BASE"
             " + 30 * BASE * 12 * BASE + 24 * BASE * NUM_CLASSES))",
    "bytes": "4 * (B * 3 * IMG * IMG + B * NUM_CLASSES + 108 * BASE + 4 * BASE * BASE + 40 * BASE * BASE"
             " + 8 * BASE * BASE + 40 * BASE * BASE + 16 * BASE * BASE + 160 * BASE * BASE + 32 * BASE * BASE"
             " + 160 * BASE * BASE + 48 * BASE * BASE + 360 * BASE * BASE + 24 * BASE * NUM_CLASSES)",
    "small": {"B": 2, "IMG": 16, "BASE": 2},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 128
IMG = 128
BASE = 16
NUM_CLASSES = 100


class Fire(nn.Module):
    def __init__(self, cin: int, squeeze: int, expand: int):
        super().__init__()
        self.squeeze = nn.Conv2d(cin, squeeze, 1)
        self.expand1 = nn.Conv2d(squeeze, expand, 1)
        self.expand3 = nn.Conv2d(squeeze, expand, 3, padding=1)

    def forward(self, x):
        s = torch.relu(self.squeeze(x))
        return torch.cat([torch.relu(self.expand1(s)), torch.relu(self.expand3(s))], dim=1)


class Model(nn.Module):
    """Stem conv3x3/2 (4*BASE) -> pool -> Fire x3 -> pool -> Fire x2 -> 1x1 conv classifier -> ReLU -> global avg."""

    def __init__(self, base: int, num_classes: int):
        super().__init__()
        b = base
        self.features = nn.Sequential(
            nn.Conv2d(3, 4 * b, 3, stride=2, padding=1), nn.ReLU(),
            nn.MaxPool2d(2),
            Fire(4 * b, b, 4 * b),
            Fire(8 * b, b, 4 * b),
            Fire(8 * b, 2 * b, 8 * b),
            nn.MaxPool2d(2),
            Fire(16 * b, 2 * b, 8 * b),
            Fire(16 * b, 3 * b, 12 * b),
        )
        self.classifier = nn.Conv2d(24 * b, num_classes, 1)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, nonlinearity="relu")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.classifier(self.features(x)))
        return x.mean(dim=(2, 3))


def get_inputs():
    return [torch.randn(B, 3, IMG, IMG)]


def get_init_inputs():
    return [BASE, NUM_CLASSES]
