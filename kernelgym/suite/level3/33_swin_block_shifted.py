"""Swin transformer block with shifted windows: LN, cyclic shift, masked window attention with relative bias, MLP, residuals."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * B * IMG * IMG * 12 * C * C + 4 * B * IMG * IMG * WINDOW * WINDOW * C",
    "bytes": "4 * (2 * B * IMG * IMG * C + 12 * C * C + 13 * C + (2 * WINDOW - 1) ** 2 * HEADS)",
    "small": {"B": 1, "IMG": 8, "C": 16, "WINDOW": 4, "SHIFT": 2, "HEADS": 2},
    "atol": 2e-2, "rtol": 2e-2,
}

B = 64
IMG = 56
C = 96
WINDOW = 7
SHIFT = 3
HEADS = 3


class Model(nn.Module):
    """x [B, IMG*IMG, C] -> same shape (one shifted-window Swin block, MLP ratio 4)."""

    def __init__(self, img: int, c: int, window: int, shift: int, heads: int):
        super().__init__()
        m = window
        self.img, self.window, self.shift, self.heads = img, window, shift, heads
        self.norm1 = nn.LayerNorm(c)
        self.qkv = nn.Linear(c, 3 * c)
        self.proj = nn.Linear(c, c)
        self.bias_table = nn.Parameter(torch.randn((2 * m - 1) ** 2, heads) * 0.5)
        self.norm2 = nn.LayerNorm(c)
        self.fc1 = nn.Linear(c, 4 * c)
        self.fc2 = nn.Linear(4 * c, c)
        nn.init.normal_(self.qkv.weight, std=c ** -0.5)
        nn.init.normal_(self.proj.weight, std=c ** -0.5)
        with torch.no_grad():
            self.qkv.weight[: 2 * c] *= 2.0
        coords = torch.stack(torch.meshgrid(torch.arange(m), torch.arange(m), indexing="ij")).flatten(1)
        rel = coords[:, :, None] - coords[:, None, :] + (m - 1)
        self.register_buffer("rel_index", rel[0] * (2 * m - 1) + rel[1], persistent=False)
        # region labels of the shifted map -> mask pairs of positions from different regions
        img_lab = torch.zeros(img, img)
        cuts = (slice(0, -m), slice(-m, -shift), slice(-shift, None))
        label = 0
        for hs in cuts:
            for ws in cuts:
                img_lab[hs, ws] = label
                label += 1
        lab = img_lab.view(img // m, m, img // m, m).permute(0, 2, 1, 3).reshape(-1, m * m)
        mask = (lab[:, :, None] != lab[:, None, :]).float() * -100.0               # [nW, M*M, M*M]
        self.register_buffer("attn_mask", mask, persistent=False)
        # the norms' weights and biases off their defaults (1, 0): a kernel must read them
        for norm in (self.norm1, self.norm2):
            nn.init.uniform_(norm.weight, 0.5, 1.5)
            nn.init.uniform_(norm.bias, -0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, L, c = x.shape
        m, s, sh, nh = self.window, self.img, self.shift, self.heads
        dh = c // nh
        y = torch.roll(self.norm1(x).view(b, s, s, c), shifts=(-sh, -sh), dims=(1, 2))
        win = y.view(b, s // m, m, s // m, m, c).permute(0, 1, 3, 2, 4, 5).reshape(-1, m * m, c)
        n = win.shape[0]
        nw = n // b
        q, k, v = self.qkv(win).view(n, m * m, 3, nh, dh).permute(2, 0, 3, 1, 4)
        att = (q @ k.transpose(-2, -1)) * dh ** -0.5 + self.bias_table[self.rel_index].permute(2, 0, 1)
        att = att.view(b, nw, nh, m * m, m * m) + self.attn_mask[None, :, None]
        att = torch.softmax(att.view(n, nh, m * m, m * m), dim=-1)
        y = self.proj((att @ v).transpose(1, 2).reshape(n, m * m, c))
        y = y.view(b, s // m, s // m, m, m, c).permute(0, 1, 3, 2, 4, 5).reshape(b, s, s, c)
        x = x + torch.roll(y, shifts=(sh, sh), dims=(1, 2)).reshape(b, L, c)
        return x + self.fc2(nn.functional.gelu(self.fc1(self.norm2(x))))


def get_inputs():
    return [torch.randn(B, IMG * IMG, C)]


def get_init_inputs():
    return [IMG, C, WINDOW, SHIFT, HEADS]
