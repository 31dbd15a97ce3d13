"""fp16 Conv3d, SiLU, then LayerNorm across channels at every voxel (channels-last normalisation)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float16",
    "flops": "2 * N * CIN * COUT * 27 * S * S * S + 14 * N * COUT * S * S * S",
    "bytes": "2 * (N * CIN * S * S * S + 27 * CIN * COUT + 3 * COUT + N * COUT * S * S * S)",
    "small": {"N": 2, "CIN": 3, "COUT": 8, "S": 5},
}

N = 8
CIN = 32
COUT = 64
S = 48


class Model(nn.Module):
    """3x3x3 conv in half precision, SiLU, LayerNorm over the channel dim via permutes."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, 3, padding=1, dtype=torch.float16)
        self.norm = nn.LayerNorm(out_channels, dtype=torch.float16)
        nn.init.uniform_(self.norm.weight, 0.5, 1.5)  # not the defaults (1, 0): a kernel must read them
        nn.init.uniform_(self.norm.bias, -0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.silu(self.conv(x)).permute(0, 2, 3, 4, 1)
        return self.norm(y).permute(0, 4, 1, 2, 3)


def get_inputs():
    return [torch.randn(N, CIN, S, S, S, dtype=torch.float16)]


def get_init_inputs():
    return [CIN, COUT]
