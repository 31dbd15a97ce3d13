"""Conv1d, BatchNorm1d with batch statistics, ReLU, then global max pooling over time to (N, C_out)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * N * CIN * COUT * KS * L + 10 * N * COUT * L",
    "bytes": "4 * (N * CIN * L + KS * CIN * COUT + 3 * COUT + N * COUT)",
    "small": {"N": 3, "CIN": 6, "COUT": 10, "L": 32},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 64
CIN = 128
COUT = 256
L = 4096
KS = 7


class Model(nn.Module):
    """Same-length convolution, per-channel normalisation over (batch, time), ReLU, max over time."""

    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)
        self.bn = nn.BatchNorm1d(out_channels, track_running_stats=False)
        nn.init.uniform_(self.bn.weight, 0.5, 1.5)  # not the defaults (1, 0): a kernel must read them
        nn.init.uniform_(self.bn.bias, -0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.bn(self.conv(x))).amax(dim=2)


def get_inputs():
    return [torch.randn(N, CIN, L) + torch.randn(N, CIN, 1)]


def get_init_inputs():
    return [CIN, COUT, KS]
