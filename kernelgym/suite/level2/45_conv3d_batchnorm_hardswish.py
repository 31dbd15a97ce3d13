"""fp16 3x3x3 same-padded Conv3d, eval-mode BatchNorm3d and HardSwish."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float16",
    "flops": "2 * N * COUT * D * H * W * CIN * 27 + 7 * N * COUT * D * H * W",
    "bytes": "2 * (N * CIN * D * H * W + COUT * CIN * 27 + 5 * COUT + N * COUT * D * H * W)",
    "small": {"N": 2, "CIN": 3, "COUT": 8, "D": 4, "H": 6, "W": 5},
}

N = 16
CIN = 32
COUT = 64
D = 16
H = 96
W = 96


class Model(nn.Module):
    """out = hardswish(batchnorm_eval(conv3d_3x3x3_p1(x)))."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, 3, padding=1)
        self.bn = nn.BatchNorm3d(out_channels, eps=1e-5)
        with torch.no_grad():
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.uniform_(-0.3, 0.3)
            self.bn.running_mean.uniform_(-0.2, 0.2)
            self.bn.running_var.uniform_(0.2, 0.6)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.batch_norm(self.conv(x), self.bn.running_mean, self.bn.running_var, self.bn.weight, self.bn.bias,
                         training=False, eps=self.bn.eps)
        return F.hardswish(y)


def get_inputs():
    return [torch.randn(N, CIN, D, H, W, dtype=torch.float16)]


def get_init_inputs():
    return [CIN, COUT]
