"""Small MobileNetV1: strided 3x3 stem then six depthwise-separable blocks (dw3x3-BN-ReLU, pw1x1-BN-ReLU), pool, linear."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * B * (IMG // 2) ** 2 * (27 * WIDTH + 9 * WIDTH + 2 * WIDTH * WIDTH)"
             " + 2 * B * (IMG // 4) ** 2 * (18 * WIDTH + 8 * WIDTH * WIDTH + 36 * WIDTH + 16 * WIDTH * WIDTH)"
             " + 2 * B * (IMG // 8) ** 2 * (36 * WIDTH + 32 * WIDTH * WIDTH + 72 * WIDTH + 64 * WIDTH * WIDTH)"
             " + 2 * B * (IMG // 16) ** 2 * (72 * WIDTH + 128 * WIDTH * WIDTH) + 2 * B * 16 * WIDTH * NUM_CLASSES",
    "bytes": "4 * (B * 3 * IMG * IMG + B * NUM_CLASSES + 27 * WIDTH + 243 * WIDTH + 250 * WIDTH * WIDTH"
             " + 16 * WIDTH * NUM_CLASSES)",
    "small": {"B": 2, "IMG": 16, "WIDTH": 4},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 256
IMG = 128
WIDTH = 32
NUM_CLASSES = 1000


def conv_bn_relu(cin: int, cout: int, k: int, stride: int, groups: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride=stride, padding=k // 2, groups=groups, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU())


class Model(nn.Module):
    """Channels WIDTH -> 2W -> 4W -> 4W -> 8W -> 8W -> 16W, strides 2,1,2,1,2,1,2 (output stride 16)."""

    def __init__(self, width: int, num_classes: int):
        super().__init__()
        w = width
        layers = [conv_bn_relu(3, w, 3, 2)]
        cfg = [(w, 2 * w, 1), (2 * w, 4 * w, 2), (4 * w, 4 * w, 1), (4 * w, 8 * w, 2), (8 * w, 8 * w, 1),
               (8 * w, 16 * w, 2)]
        for cin, cout, stride in cfg:
            layers.append(conv_bn_relu(cin, cin, 3, stride, groups=cin))
            layers.append(conv_bn_relu(cin, cout, 1, 1))
        self.features = nn.Sequential(*layers)
        self.fc = nn.Linear(16 * w, num_classes)
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
        x = self.features(x).mean(dim=(2, 3))
        return self.fc(x)


def get_inputs():
    return [torch.randn(B, 3, IMG, IMG)]


def get_init_inputs():
    return [WIDTH, NUM_CLASSES]
