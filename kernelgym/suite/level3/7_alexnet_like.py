"""AlexNet-style CNN: strided 7x7 stem, 5x5 and three 3x3 convs with ReLU and overlapping max-pools, 3-layer classifier."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * B * ((IMG // 2) ** 2 * WIDTH * 3 * 49 + (IMG // 4) ** 2 * 3 * WIDTH * WIDTH * 25"
             " + (IMG // 8) ** 2 * 9 * (6 * WIDTH * 3 * WIDTH + 4 * WIDTH * 6 * WIDTH + 4 * WIDTH * 4 * WIDTH)"
             " + 16 * WIDTH * FC + FC * FC + FC * NUM_CLASSES)",
    "bytes": "4 * (B * 3 * IMG * IMG + B * NUM_CLASSES + WIDTH * 3 * 49 + 3 * WIDTH * WIDTH * 25"
             " + 9 * (18 * WIDTH * WIDTH + 24 * WIDTH * WIDTH + 16 * WIDTH * WIDTH)"
             " + 16 * WIDTH * FC + FC * FC + FC * NUM_CLASSES)",
    "small": {"B": 2, "IMG": 16, "WIDTH": 4, "FC": 32},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 128
IMG = 128
WIDTH = 64
FC = 1024
NUM_CLASSES = 100


class Model(nn.Module):
    """Channels WIDTH, 3W, 6W, 4W, 4W; adaptive average pool to 2x2; FC -> FC -> NUM_CLASSES."""

    def __init__(self, width: int, fc: int, num_classes: int):
        super().__init__()
        w = width
        self.features = nn.Sequential(
            nn.Conv2d(3, w, 7, stride=2, padding=3), nn.ReLU(),
            nn.MaxPool2d(3, stride=2, padding=1),
            nn.Conv2d(w, 3 * w, 5, padding=2), nn.ReLU(),
            nn.MaxPool2d(3, stride=2, padding=1),
            nn.Conv2d(3 * w, 6 * w, 3, padding=1), nn.ReLU(),
            nn.Conv2d(6 * w, 4 * w, 3, padding=1), nn.ReLU(),
            nn.Conv2d(4 * w, 4 * w, 3, padding=1), nn.ReLU(),
            nn.MaxPool2d(3, stride=2, padding=1),
        )
        self.pool = nn.AdaptiveAvgPool2d(2)
        self.classifier = nn.Sequential(
            nn.Linear(16 * w, fc), nn.ReLU(),
            nn.Linear(fc, fc), nn.ReLU(),
            nn.Linear(fc, num_classes),
        )
        for m in self.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
                nn.init.uniform_(m.bias, -0.2, 0.2)  # not zeros: a kernel must read the biases

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(self.features(x)).flatten(1)
        return self.classifier(x)


def get_inputs():
    return [torch.randn(B, 3, IMG, IMG)]


def get_init_inputs():
    return [WIDTH, FC, NUM_CLASSES]
