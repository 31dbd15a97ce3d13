"""SE-ResNet basic block: conv3x3-BN-ReLU-conv3x3-BN, squeeze-excitation channel gating, identity residual, ReLU."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * B * IMG * IMG * 2 * 9 * C * C + 4 * B * C * (C // REDUCTION) + 4 * B * C * IMG * IMG",
    "bytes": "4 * (2 * B * C * IMG * IMG + 18 * C * C + 2 * C * (C // REDUCTION) + 9 * C + C // REDUCTION)",
    "small": {"B": 2, "C": 16, "IMG": 8, "REDUCTION": 4},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 128
C = 256
IMG = 28
REDUCTION = 16


class Model(nn.Module):
    """x [B, C, IMG, IMG] -> same shape (inference-mode BatchNorm)."""

    def __init__(self, c: int, reduction: int):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)
        self.fc1 = nn.Linear(c, c // reduction)
        self.fc2 = nn.Linear(c // reduction, c)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.uniform_(m.weight, 0.5, 1.5)
                nn.init.uniform_(m.bias, -0.2, 0.2)
                nn.init.uniform_(m.running_mean, -0.2, 0.2)
                nn.init.uniform_(m.running_var, 0.5, 1.5)
        nn.init.kaiming_normal_(self.fc1.weight, nonlinearity="relu")
        nn.init.normal_(self.fc2.weight, std=2.0 * (c // reduction) ** -0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        s = torch.sigmoid(self.fc2(torch.relu(self.fc1(y.mean(dim=(2, 3))))))
        return torch.relu(x + y * s[:, :, None, None])


def get_inputs():
    return [torch.randn(B, C, IMG, IMG)]


def get_init_inputs():
    return [C, REDUCTION]
