"""ConvTranspose3d, softmax over channels, then a learned weighted sum over channels to one output map."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * N * CIN * COUT * 27 * S * S * S + 6 * N * COUT * (2 * S - 1) ** 3",
    "bytes": "4 * (N * CIN * S * S * S + 27 * CIN * COUT + 2 * COUT + N * (2 * S - 1) ** 3)",
    "small": {"N": 2, "CIN": 4, "COUT": 6, "S": 4},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 8
CIN = 64
COUT = 32
S = 32


class Model(nn.Module):
    """Stride-2 3D transposed conv (kernel 3), channel softmax, per-channel value weights summed over channels."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.deconv = nn.ConvTranspose3d(in_channels, out_channels, 3, stride=2, padding=1)
        self.values = nn.Parameter(torch.randn(out_channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        p = torch.softmax(self.deconv(x), dim=1)
        return (p * self.values[None, :, None, None, None]).sum(dim=1)


def get_inputs():
    return [torch.randn(N, CIN, S, S, S) * 3]


def get_init_inputs():
    return [CIN, COUT]
