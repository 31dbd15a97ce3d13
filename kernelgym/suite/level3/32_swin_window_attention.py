"""Swin window attention: partition a feature map into MxM windows, multi-head attention with relative position bias, merge back."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "2 * B * IMG * IMG * 4 * C * C + 4 * B * IMG * IMG * WINDOW * WINDOW * C",
    "bytes": "4 * (2 * B * IMG * IMG * C + 4 * C * C + 4 * C + (2 * WINDOW - 1) ** 2 * HEADS)",
    "small": {"B": 1, "IMG": 8, "C": 16, "WINDOW": 4, "HEADS": 2},
    "atol": 2e-2, "rtol": 2e-2,
}

B = 64
IMG = 56
C = 128
WINDOW = 7
HEADS = 4


class Model(nn.Module):
    """x [B, IMG, IMG, C] (channels last) -> same shape; IMG must be a multiple of WINDOW."""

    def __init__(self, c: int, window: int, heads: int):
        super().__init__()
        m = window
        self.window, self.heads = window, heads
        self.qkv = nn.Linear(c, 3 * c)
        self.proj = nn.Linear(c, c)
        self.bias_table = nn.Parameter(torch.randn((2 * m - 1) ** 2, heads) * 0.5)
        coords = torch.stack(torch.meshgrid(torch.arange(m), torch.arange(m), indexing="ij")).flatten(1)
        rel = coords[:, :, None] - coords[:, None, :] + (m - 1)                  # [2, M*M, M*M]
        self.register_buffer("rel_index", rel[0] * (2 * m - 1) + rel[1], persistent=False)
        nn.init.normal_(self.qkv.weight, std=c ** -0.5)
        nn.init.normal_(self.proj.weight, std=c ** -0.5)
        with torch.no_grad():
            self.qkv.weight[: 2 * c] *= 2.0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, h, w, c = x.shape
        m, nh = self.window, self.heads
        dh = c // nh
        win = x.view(b, h // m, m, w // m, m, c).permute(0, 1, 3, 2, 4, 5).reshape(-1, m * m, c)
        n = win.shape[0]
        q, k, v = self.qkv(win).view(n, m * m, 3, nh, dh).permute(2, 0, 3, 1, 4)
        bias = self.bias_table[self.rel_index].permute(2, 0, 1)                  # [H, M*M, M*M]
        att = torch.softmax((q @ k.transpose(-2, -1)) * dh ** -0.5 + bias, dim=-1)
        y = self.proj((att @ v).transpose(1, 2).reshape(n, m * m, c))
        y = y.view(b, h // m, w // m, m, m, c).permute(0, 1, 3, 2, 4, 5).reshape(b, h, w, c)
        return y


def get_inputs():
    return [torch.randn(B, IMG, IMG, C)]


def get_init_inputs():
    return [C, WINDOW, HEADS]
