"""bf16 3x3 stride-2 downsampling Conv2d, eval-mode BatchNorm2d and SiLU."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "bfloat16",
    "flops": "2 * N * COUT * (H // 2) * (W // 2) * CIN * 9 + 7 * N * COUT * (H // 2) * (W // 2)",
    "bytes": "2 * (N * CIN * H * W + COUT * CIN * 9 + 4 * COUT + N * COUT * (H // 2) * (W // 2))",
    "small": {"N": 2, "CIN": 4, "COUT": 8, "H": 12, "W": 10},
}

N = 96
CIN = 64
COUT = 128
H = 256
W = 256


class Model(nn.Module):
    """out = silu(batchnorm_eval(conv3x3_s2_p1(x))); conv without bias."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, 3, stride=2, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(out_channels, eps=1e-5)
        with torch.no_grad():
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.uniform_(-0.3, 0.3)
            self.bn.running_mean.uniform_(-0.2, 0.2)
            self.bn.running_var.uniform_(0.2, 0.6)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.batch_norm(self.conv(x), self.bn.running_mean, self.bn.running_var, self.bn.weight, self.bn.bias,
                         training=False, eps=self.bn.eps)
        return F.silu(y)


def get_inputs():
    return [torch.randn(N, CIN, H, W, dtype=torch.bfloat16)]


def get_init_inputs():
    return [CIN, COUT]
