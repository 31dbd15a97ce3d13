"""Power-average (L2) pooling nn.LPPool2d(norm_type=2, kernel_size=3, stride=2): sqrt of the sum of squares in each window, odd spatial size."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Pooling",
    "level": 1,
    "dtype": "float32",
    "flops": "2 * 9 * B * C * ((H - 3) // 2 + 1) * ((W - 3) // 2 + 1)",
    "bytes": "4 * (B * C * H * W + B * C * ((H - 3) // 2 + 1) * ((W - 3) // 2 + 1))",
    "small": {"B": 2, "C": 3, "H": 11, "W": 13},
}

B = 32
C = 128
H = 255
W = 191


class Model(nn.Module):
    """PyTorch computes it as (avg_pool2d(x^2) * 9) ^ (1/2)."""

    def __init__(self):
        super().__init__()
        self.pool = nn.LPPool2d(norm_type=2, kernel_size=3, stride=2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


def get_inputs():
    return [torch.randn(B, C, H, W)]


def get_init_inputs():
    return []
