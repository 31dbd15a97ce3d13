"""LeNet-style CNN: two 5x5 conv + ReLU + 2x2 max-pool stages followed by three fully connected layers."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * B * (IMG * IMG * C1 * 25 + (IMG // 2 - 4) ** 2 * C2 * C1 * 25"
             " + C2 * ((IMG // 2 - 4) // 2) ** 2 * FC1 + FC1 * FC2 + FC2 * NUM_CLASSES)",
    "bytes": "4 * (B * IMG * IMG + B * NUM_CLASSES + C1 * 25 + C2 * C1 * 25"
             " + C2 * ((IMG // 2 - 4) // 2) ** 2 * FC1 + FC1 * FC2 + FC2 * NUM_CLASSES)",
    "small": {"B": 2, "IMG": 16, "C1": 4, "C2": 8, "FC1": 32, "FC2": 16},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 8192
IMG = 28
C1 = 16
C2 = 32
FC1 = 256
FC2 = 128
NUM_CLASSES = 10


class Model(nn.Module):
    """conv5x5(pad 2) -> ReLU -> maxpool2 -> conv5x5 -> ReLU -> maxpool2 -> FC -> ReLU -> FC -> ReLU -> FC."""

    def __init__(self, img: int, c1: int, c2: int, fc1: int, fc2: int, num_classes: int):
        super().__init__()
        self.conv1 = nn.Conv2d(1, c1, 5, padding=2)
        self.conv2 = nn.Conv2d(c1, c2, 5)
        self.pool = nn.MaxPool2d(2)
        side = (img // 2 - 4) // 2
        self.fc1 = nn.Linear(c2 * side * side, fc1)
        self.fc2 = nn.Linear(fc1, fc2)
        self.fc3 = nn.Linear(fc2, num_classes)
        for m in (self.conv1, self.conv2, self.fc1, self.fc2):
            nn.init.kaiming_normal_(m.weight, nonlinearity="relu")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(torch.relu(self.conv1(x)))
        x = self.pool(torch.relu(self.conv2(x)))
        x = x.flatten(1)
        x = torch.relu(self.fc1(x))
        x = torch.relu(self.fc2(x))
        return self.fc3(x)


def get_inputs():
    return [torch.randn(B, 1, IMG, IMG)]


def get_init_inputs():
    return [IMG, C1, C2, FC1, FC2, NUM_CLASSES]
