"""Conv3d, BatchNorm3d with batch statistics, Hardswish, then 2x2x2 average pooling."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * N * CIN * COUT * 27 * S * S * S + 16 * N * COUT * S * S * S",
    "bytes": "4 * (N * CIN * S * S * S + 27 * CIN * COUT + 3 * COUT + N * COUT * S * S * S // 8)",
    "small": {"N": 3, "CIN": 3, "COUT": 4, "S": 6},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 16
CIN = 16
COUT = 32
S = 48


class Model(nn.Module):
    """3x3x3 conv, per-channel normalisation over (batch, space), Hardswish, AvgPool3d(2)."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, 3, padding=1)
        self.bn = nn.BatchNorm3d(out_channels, track_running_stats=False)
        with torch.no_grad():
            self.bn.weight.copy_(1 + 0.3 * torch.randn(out_channels))
            self.bn.bias.copy_(0.3 * torch.randn(out_channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.avg_pool3d(F.hardswish(self.bn(self.conv(x))), 2)


def get_inputs():
    return [torch.randn(N, CIN, S, S, S)]


def get_init_inputs():
    return [CIN, COUT]
