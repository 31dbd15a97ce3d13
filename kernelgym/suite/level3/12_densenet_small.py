"""Small DenseNet-BC: stem conv, three dense blocks joined by transitions (BN-ReLU-1x1 conv-avgpool), pooled linear head."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * B * IMG * IMG * (54 * GROWTH + (LAYERS * (2 * GROWTH) * 4 * GROWTH + 2 * GROWTH *"
             " GROWTH * LAYERS * (LAYERS - 1) + 36 * GROWTH * GROWTH * LAYERS) + (2 * GROWTH + LAYERS *"
             " GROWTH) * ((2 * GROWTH + LAYERS * GROWTH) // 2) + ((LAYERS * ((2 * GROWTH + LAYERS *"
             " GROWTH) // 2) * 4 * GROWTH + 2 * GROWTH * GROWTH * LAYERS * (LAYERS - 1) + 36 * GROWTH *"
             " GROWTH * LAYERS) + (((2 * GROWTH + LAYERS * GROWTH) // 2) + LAYERS * GROWTH) * ((((2 *"
             " GROWTH + LAYERS * GROWTH) // 2) + LAYERS * GROWTH) // 2)) / 4 + (LAYERS * ((((2 * GROWTH"
             " + LAYERS * GROWTH) // 2) + LAYERS * GROWTH) // 2) * 4 * GROWTH + 2 * GROWTH * GROWTH *"
             " LAYERS * (LAYERS - 1) + 36 * GROWTH * GROWTH * LAYERS) / 16) + 2 * B * (((((2 * GROWTH +"
             " LAYERS * GROWTH) // 2) + LAYERS * GROWTH) // 2) + LAYERS * GROWTH) * NUM_CLASSES",
    "bytes": "4 * (B * 3 * IMG * IMG + B * NUM_CLASSES + 54 * GROWTH + (LAYERS * (2 * GROWTH) * 4 *"
             " GROWTH + 2 * GROWTH * GROWTH * LAYERS * (LAYERS - 1) + 36 * GROWTH * GROWTH * LAYERS) +"
             " (2 * GROWTH + LAYERS * GROWTH) * ((2 * GROWTH + LAYERS * GROWTH) // 2) + (LAYERS * ((2 *"
             " GROWTH + LAYERS * GROWTH) // 2) * 4 * GROWTH + 2 * GROWTH * GROWTH * LAYERS * (LAYERS -"
             " 1) + 36 * GROWTH * GROWTH * LAYERS) + (((2 * GROWTH + LAYERS * GROWTH) // 2) + LAYERS *"
             " GROWTH) * ((((2 * GROWTH + LAYERS * GROWTH) // 2) + LAYERS * GROWTH) // 2) + (LAYERS *"
             " ((((2 * GROWTH + LAYERS * GROWTH) // 2) + LAYERS * GROWTH) // 2) * 4 * GROWTH + 2 *"
             " GROWTH * GROWTH * LAYERS * (LAYERS - 1) + 36 * GROWTH * GROWTH * LAYERS) + (((((2 *"
             " GROWTH + LAYERS * GROWTH) // 2) + LAYERS * GROWTH) // 2) + LAYERS * GROWTH) *"
             " NUM_CLASSES)",
    "small": {"B": 1, "IMG": 8, "GROWTH": 4, "LAYERS": 2},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 64
IMG = 32
GROWTH = 12
LAYERS = 8
NUM_CLASSES = 10


def bn(c: int) -> nn.BatchNorm2d:
    return nn.BatchNorm2d(c)


class DenseLayer(nn.Module):
    def __init__(self, cin: int, growth: int):
        super().__init__()
        self.bn1 = bn(cin)
        self.conv1 = nn.Conv2d(cin, 4 * growth, 1, bias=False)
        self.bn2 = bn(4 * growth)
        self.conv2 = nn.Conv2d(4 * growth, growth, 3, padding=1, bias=False)

    def forward(self, x):
        y = self.conv2(torch.relu(self.bn2(self.conv1(torch.relu(self.bn1(x))))))
        return torch.cat([x, y], dim=1)


class Transition(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.bn = bn(cin)
        self.conv = nn.Conv2d(cin, cout, 1, bias=False)

    def forward(self, x):
        return F.avg_pool2d(self.conv(torch.relu(self.bn(x))), 2)


class Model(nn.Module):
    """Channels start at 2*GROWTH; each transition halves channels and resolution."""

    def __init__(self, growth: int, layers: int, num_classes: int):
        super().__init__()
        c = 2 * growth
        self.stem = nn.Conv2d(3, c, 3, padding=1, bias=False)
        stages = []
        for s in range(3):
            for _ in range(layers):
                stages.append(DenseLayer(c, growth))
                c += growth
            if s < 2:
                stages.append(Transition(c, c // 2))
                c //= 2
        self.stages = nn.Sequential(*stages)
        self.norm = bn(c)
        self.fc = nn.Linear(c, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.uniform_(m.weight, 0.5, 1.5)
                nn.init.uniform_(m.bias, -0.2, 0.2)
                nn.init.uniform_(m.running_mean, -0.2, 0.2)
                nn.init.uniform_(m.running_var, 0.5, 1.5)
        nn.init.kaiming_normal_(self.fc.weight, nonlinearity="linear")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stages(self.stem(x))
        x = torch.relu(self.norm(x)).mean(dim=(2, 3))
        return self.fc(x)


def get_inputs():
    return [torch.randn(B, 3, IMG, IMG)]


def get_init_inputs():
    return [GROWTH, LAYERS, NUM_CLASSES]
