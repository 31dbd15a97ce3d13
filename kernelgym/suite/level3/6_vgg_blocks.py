"""Three VGG blocks, each two 3x3 conv + BatchNorm + ReLU layers and a 2x2 max-pool (inference-mode BN)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * B * 9 * (IMG * IMG * (3 * W1 + W1 * W1) + (IMG // 2) ** 2 * (W1 * 2 * W1 + 4 * W1 * W1)"
             " + (IMG // 4) ** 2 * (2 * W1 * 4 * W1 + 16 * W1 * W1))",
    "bytes": "4 * (B * 3 * IMG * IMG + B * 4 * W1 * (IMG // 8) ** 2"
             " + 9 * (3 * W1 + W1 * W1 + 2 * W1 * W1 + 4 * W1 * W1 + 8 * W1 * W1 + 16 * W1 * W1))",
    "small": {"B": 1, "IMG": 16, "W1": 4},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 96
IMG = 64
W1 = 64


def vgg_block(cin: int, cout: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
        nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
        nn.MaxPool2d(2),
    )


class Model(nn.Module):
    """3 -> W1 -> 2*W1 -> 4*W1 channels, spatial size divided by 8; returns the feature map."""

    def __init__(self, w1: int):
        super().__init__()
        self.features = nn.Sequential(vgg_block(3, w1), vgg_block(w1, 2 * w1), vgg_block(2 * w1, 4 * w1))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.uniform_(m.weight, 0.5, 1.5)
                nn.init.uniform_(m.bias, -0.2, 0.2)
                nn.init.uniform_(m.running_mean, -0.2, 0.2)
                nn.init.uniform_(m.running_var, 0.5, 1.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.features(x)


def get_inputs():
    return [torch.randn(B, 3, IMG, IMG)]


def get_init_inputs():
    return [W1]
