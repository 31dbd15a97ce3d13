"""ConvNeXt block: x + gamma * Linear2(GELU(Linear1(LayerNorm_C(DepthwiseConv7x7(x))))) in channels-last form."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * N * C * HW * HW * (49 + 8 * C) + 40 * N * C * HW * HW",
    "bytes": "4 * (2 * N * C * HW * HW + 49 * C + 8 * C * C + 10 * C)",
    "small": {"N": 2, "C": 8, "HW": 9},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 32
C = 192
HW = 56


class Model(nn.Module):
    """Depthwise 7x7 conv, LayerNorm over channels, 4x pointwise MLP with GELU, layer scale, residual."""

    def __init__(self, dim):
        super().__init__()
        self.dwconv = nn.Conv2d(dim, dim, 7, padding=3, groups=dim)
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.pw1 = nn.Linear(dim, 4 * dim)
        self.pw2 = nn.Linear(4 * dim, dim)
        self.gamma = nn.Parameter(torch.full((dim,), 0.5))
        nn.init.uniform_(self.norm.weight, 0.5, 1.5)  # not the defaults (1, 0): a kernel must read them
        nn.init.uniform_(self.norm.bias, -0.5, 0.5)
        nn.init.uniform_(self.gamma, 0.25, 0.75)  # a per-channel layer scale, not one constant

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.dwconv(x).permute(0, 2, 3, 1)
        y = self.pw2(F.gelu(self.pw1(self.norm(y))))
        return x + (self.gamma * y).permute(0, 3, 1, 2)


def get_inputs():
    return [torch.randn(N, C, HW, HW)]


def get_init_inputs():
    return [C]
