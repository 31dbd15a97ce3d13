"""Image-stem 7x7 stride-2 Conv2d on RGB input, eval-mode BatchNorm2d, ReLU and 3x3 stride-2 max pooling."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * N * COUT * (H // 2) * (W // 2) * CIN * 49 + 12 * N * COUT * (H // 2) * (W // 2)",
    "bytes": "4 * (N * CIN * H * W + COUT * CIN * 49 + 4 * COUT + N * COUT * (H // 4) * (W // 4))",
    "small": {"N": 2, "CIN": 3, "COUT": 8, "H": 16, "W": 16},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 128
CIN = 3
COUT = 64
H = 224
W = 224


class Model(nn.Module):
    """out = max_pool2d(relu(batchnorm_eval(conv7x7_s2_p3(x))), 3, stride=2, padding=1); conv without bias."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, 7, stride=2, padding=3, bias=False)
        self.bn = nn.BatchNorm2d(out_channels, eps=1e-5)
        with torch.no_grad():
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.uniform_(-0.3, 0.3)
            self.bn.running_mean.uniform_(-0.2, 0.2)
            self.bn.running_var.uniform_(0.2, 0.6)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.batch_norm(self.conv(x), self.bn.running_mean, self.bn.running_var, self.bn.weight, self.bn.bias,
                         training=False, eps=self.bn.eps)
        return F.max_pool2d(torch.relu(y), 3, stride=2, padding=1)


def get_inputs():
    return [torch.randn(N, CIN, H, W)]


def get_init_inputs():
    return [CIN, COUT]
