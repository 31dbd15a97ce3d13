"""2x upsampling ConvTranspose2d (kernel 4, stride 2, padding 1), eval-mode BatchNorm2d and ReLU."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * N * CIN * COUT * H * W * 16 + 5 * N * COUT * (2 * H) * (2 * W)",
    "bytes": "4 * (N * CIN * H * W + CIN * COUT * 16 + 5 * COUT + N * COUT * (2 * H) * (2 * W))",
    "small": {"N": 2, "CIN": 6, "COUT": 4, "H": 5, "W": 6},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 64
CIN = 128
COUT = 64
H = 64
W = 64


class Model(nn.Module):
    """out = relu(batchnorm_eval(conv_transpose2d(x, k=4, s=2, p=1))); output (N, COUT, 2H, 2W)."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.deconv = nn.ConvTranspose2d(in_channels, out_channels, 4, stride=2, padding=1)
        self.bn = nn.BatchNorm2d(out_channels, eps=1e-5)
        with torch.no_grad():
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.uniform_(-0.3, 0.3)
            self.bn.running_mean.uniform_(-0.2, 0.2)
            self.bn.running_var.uniform_(0.1, 0.3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.batch_norm(self.deconv(x), self.bn.running_mean, self.bn.running_var, self.bn.weight, self.bn.bias,
                         training=False, eps=self.bn.eps)
        return torch.relu(y)


def get_inputs():
    return [torch.randn(N, CIN, H, W)]


def get_init_inputs():
    return [CIN, COUT]
