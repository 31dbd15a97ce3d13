"""ConvNeXt block: 7x7 depthwise conv, channels-last LayerNorm, pointwise MLP (4x, GELU), layer scale, residual."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Normalization",
    "dtype": "float32",
    "flops": "2 * B * IMG * IMG * (49 * C + 8 * C * C)",
    "bytes": "4 * (2 * B * C * IMG * IMG + 49 * C + 8 * C * C + 10 * C)",
    "small": {"B": 2, "C": 16, "IMG": 8},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 32
C = 192
IMG = 56


class Model(nn.Module):
    """x [B, C, IMG, IMG] -> x + gamma * MLP(LN(dwconv7x7(x))) (NCHW in and out)."""

    def __init__(self, c: int):
        super().__init__()
        self.dw = nn.Conv2d(c, c, 7, padding=3, groups=c)
        self.norm = nn.LayerNorm(c, eps=1e-6)
        self.pw1 = nn.Linear(c, 4 * c)
        self.pw2 = nn.Linear(4 * c, c)
        self.gamma = nn.Parameter(torch.full((c,), 0.5))
        nn.init.normal_(self.dw.weight, std=49 ** -0.5)
        nn.init.normal_(self.pw1.weight, std=c ** -0.5)
        nn.init.normal_(self.pw2.weight, std=2.0 * (4 * c) ** -0.5)
        nn.init.uniform_(self.norm.weight, 0.5, 1.5)  # not the defaults (1, 0): a kernel must read them
        nn.init.uniform_(self.norm.bias, -0.5, 0.5)
        nn.init.uniform_(self.gamma, 0.25, 0.75)  # a per-channel layer scale, not one constant

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.dw(x).permute(0, 2, 3, 1)                   # NHWC
        y = self.pw2(nn.functional.gelu(self.pw1(self.norm(y))))
        return x + (self.gamma * y).permute(0, 3, 1, 2)


def get_inputs():
    return [torch.randn(B, C, IMG, IMG)]


def get_init_inputs():
    return [C]
