"""3x3 same-padded Conv2d, eval-mode BatchNorm2d (running statistics) and ReLU."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * N * COUT * H * W * CIN * KS * KS + 5 * N * COUT * H * W",
    "bytes": "4 * (N * CIN * H * W + COUT * CIN * KS * KS + 5 * COUT + N * COUT * H * W)",
    "small": {"N": 2, "CIN": 3, "COUT": 8, "H": 8, "W": 8},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 32
CIN = 32
COUT = 64
H = 224
W = 224
KS = 3


class Model(nn.Module):
    """out = relu(batchnorm_eval(conv2d(x, padding=KS // 2)))."""

    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)
        self.bn = nn.BatchNorm2d(out_channels, eps=1e-5)
        with torch.no_grad():
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.uniform_(-0.3, 0.3)
            self.bn.running_mean.uniform_(-0.2, 0.2)
            self.bn.running_var.uniform_(0.2, 0.6)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.batch_norm(self.conv(x), self.bn.running_mean, self.bn.running_var, self.bn.weight, self.bn.bias,
                         training=False, eps=self.bn.eps)
        return torch.relu(y)


def get_inputs():
    return [torch.randn(N, CIN, H, W)]


def get_init_inputs():
    return [CIN, COUT, KS]
