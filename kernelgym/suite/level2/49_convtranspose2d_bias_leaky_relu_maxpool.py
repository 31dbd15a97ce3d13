"""ConvTranspose2d (kernel 3, stride 2, output_padding 1), learned bias add, LeakyReLU and 2x2 max pooling."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * N * CIN * COUT * H * W * 9 + 3 * N * COUT * (2 * H) * (2 * W)",
    "bytes": "4 * (N * CIN * H * W + CIN * COUT * 9 + 2 * COUT + N * COUT * H * W)",
    "small": {"N": 2, "CIN": 5, "COUT": 4, "H": 6, "W": 7},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 96
CIN = 96
COUT = 48
H = 80
W = 80
NEG_SLOPE = 0.1


class Model(nn.Module):
    """y = conv_transpose2d(x, k=3, s=2, p=1, output_padding=1) (size 2H x 2W);
    out = max_pool2d(leaky_relu(y + bias), 2), bias of shape (COUT, 1, 1); output (N, COUT, H, W)."""

    def __init__(self, in_channels, out_channels, negative_slope):
        super().__init__()
        self.deconv = nn.ConvTranspose2d(in_channels, out_channels, 3, stride=2, padding=1, output_padding=1)
        self.bias = nn.Parameter(torch.randn(out_channels, 1, 1) * 0.5)
        self.negative_slope = negative_slope

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.leaky_relu(self.deconv(x) + self.bias, self.negative_slope)
        return F.max_pool2d(y, 2)


def get_inputs():
    return [torch.randn(N, CIN, H, W)]


def get_init_inputs():
    return [CIN, COUT, NEG_SLOPE]
