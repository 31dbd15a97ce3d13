"""1D convolution with kernel 7, stride 2 and dilation 3, no padding and no bias."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * N * COUT * ((L - DIL * (KSIZE - 1) - 1) // STRIDE + 1) * CIN * KSIZE",
    "bytes": "4 * (N * CIN * L + COUT * CIN * KSIZE + N * COUT * ((L - DIL * (KSIZE - 1) - 1) // STRIDE + 1))",
    "small": {"N": 2, "CIN": 3, "COUT": 5, "L": 41},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 128
CIN = 48
COUT = 96
L = 40000
KSIZE = 7
STRIDE = 2
DIL = 3


class Model(nn.Module):
    """nn.Conv1d(CIN, COUT, 7, stride=2, dilation=3, bias=False)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, stride: int, dilation: int):
        super().__init__()
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size, stride=stride, dilation=dilation, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(N, CIN, L)]


def get_init_inputs():
    return [CIN, COUT, KSIZE, STRIDE, DIL]
