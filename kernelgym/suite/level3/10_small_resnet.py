"""CIFAR-style ResNet: 3x3 stem, three stages of basic blocks (widths BASE, 2*BASE, 4*BASE), global pool, linear head."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * B * IMG * IMG * (27 * BASE + BASE * BASE * (18 * BLOCKS + (56 + 72 * (BLOCKS - 1)) / 4"
             " + (224 + 288 * (BLOCKS - 1)) / 16)) + 2 * B * 4 * BASE * NUM_CLASSES",
    "bytes": "4 * (B * 3 * IMG * IMG + B * NUM_CLASSES + 27 * BASE + BASE * BASE * (18 * BLOCKS + 280"
             " + 360 * (BLOCKS - 1)) + 4 * BASE * NUM_CLASSES)",
    "small": {"B": 2, "IMG": 8, "BASE": 4, "BLOCKS": 1},
    "atol": 2e-2, "rtol": 2e-2,
}

B = 256
IMG = 32
BASE = 32
BLOCKS = 2
NUM_CLASSES = 10


class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = torch.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return torch.relu(out + self.shortcut(x))


class Model(nn.Module):
    """Stem conv-BN-ReLU, BLOCKS basic blocks per stage (stages 2 and 3 downsample), avg-pool, FC."""

    def __init__(self, base: int, blocks_per_stage: int, num_classes: int):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, base, 3, padding=1, bias=False), nn.BatchNorm2d(base), nn.ReLU())
        blocks = []
        cin = base
        for stage, cout in enumerate((base, 2 * base, 4 * base)):
            for i in range(blocks_per_stage):
                blocks.append(BasicBlock(cin, cout, 2 if (stage > 0 and i == 0) else 1))
                cin = cout
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(4 * base, num_classes)
        nn.init.normal_(self.fc.weight, std=3.0 * (4 * base) ** -0.5)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.uniform_(m.weight, 0.3, 0.8)
                nn.init.uniform_(m.bias, -0.2, 0.2)
                nn.init.uniform_(m.running_mean, -0.2, 0.2)
                nn.init.uniform_(m.running_var, 0.5, 1.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.blocks(self.stem(x))
        return self.fc(x.mean(dim=(2, 3)))


def get_inputs():
    return [torch.randn(B, 3, IMG, IMG)]


def get_init_inputs():
    return [BASE, BLOCKS, NUM_CLASSES]
