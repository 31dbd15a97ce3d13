"""DenseNet-BC dense block: LAYERS x (BN-ReLU-conv1x1 -> BN-ReLU-conv3x3), each output concatenated to its input."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * B * IMG * IMG * (LAYERS * C0 * 4 * GROWTH + LAYERS * (LAYERS - 1) // 2 * GROWTH * 4 * GROWTH"
             " + LAYERS * 4 * GROWTH * GROWTH * 9)",
    "bytes": "4 * (B * C0 * IMG * IMG + B * (C0 + LAYERS * GROWTH) * IMG * IMG + LAYERS * C0 * 4 * GROWTH"
             " + LAYERS * (LAYERS - 1) // 2 * GROWTH * 4 * GROWTH + LAYERS * 36 * GROWTH * GROWTH)",
    "small": {"B": 1, "C0": 8, "GROWTH": 4, "LAYERS": 3, "IMG": 8},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 128
C0 = 64
GROWTH = 32
LAYERS = 6
IMG = 32


class DenseLayer(nn.Module):
    def __init__(self, cin: int, growth: int):
        super().__init__()
        self.bn1 = nn.BatchNorm2d(cin)
        self.conv1 = nn.Conv2d(cin, 4 * growth, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(4 * growth)
        self.conv2 = nn.Conv2d(4 * growth, growth, 3, padding=1, bias=False)

    def forward(self, x):
        y = self.conv1(torch.relu(self.bn1(x)))
        return self.conv2(torch.relu(self.bn2(y)))


class Model(nn.Module):
    """Returns the concatenation of the input and every layer's GROWTH new channels."""

    def __init__(self, c0: int, growth: int, layers: int):
        super().__init__()
        self.layers = nn.ModuleList(DenseLayer(c0 + i * growth, growth) for i in range(layers))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.uniform_(m.weight, 0.5, 1.5)
                nn.init.uniform_(m.bias, -0.2, 0.2)
                nn.init.uniform_(m.running_mean, -0.2, 0.2)
                nn.init.uniform_(m.running_var, 0.5, 1.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = torch.cat([x, layer(x)], dim=1)
        return x


def get_inputs():
    return [torch.randn(B, C0, IMG, IMG)]


def get_init_inputs():
    return [C0, GROWTH, LAYERS]
