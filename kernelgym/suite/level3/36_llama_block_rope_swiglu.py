"""LLaMA-style decoder block: RMSNorm, rotary position embedding on Q/K, causal attention, RMSNorm, SwiGLU MLP, residuals."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * B * S * (4 * D * D + 3 * D * FF) + 2 * B * S * S * D",
    "bytes": "4 * (2 * B * S * D + 4 * D * D + 3 * D * FF + 2 * D)",
    "small": {"B": 2, "S": 8, "D": 32, "HEADS": 4, "FF": 48},
    "atol": 2e-2, "rtol": 2e-2,
}

B = 4
S = 1024
D = 1024
HEADS = 16
FF = 2816


class RMSNorm(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight


def rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    x1, x2 = x.chunk(2, dim=-1)
    return x * cos + torch.cat([-x2, x1], dim=-1) * sin


class Model(nn.Module):
    """x [B, S, D] -> [B, S, D]; rotary base 10000 over the full head dimension."""

    def __init__(self, d: int, heads: int, ff: int):
        super().__init__()
        self.heads = heads
        self.attn_norm = RMSNorm(d)
        self.wq = nn.Linear(d, d, bias=False)
        self.wk = nn.Linear(d, d, bias=False)
        self.wv = nn.Linear(d, d, bias=False)
        self.wo = nn.Linear(d, d, bias=False)
        self.mlp_norm = RMSNorm(d)
        self.w_gate = nn.Linear(d, ff, bias=False)
        self.w_up = nn.Linear(d, ff, bias=False)
        self.w_down = nn.Linear(ff, d, bias=False)
        for lin, std in ((self.wq, 2.0), (self.wk, 2.0), (self.wv, 1.0), (self.wo, 1.0), (self.w_gate, 1.0),
                         (self.w_up, 1.0)):
            nn.init.normal_(lin.weight, std=std * d ** -0.5)
        nn.init.normal_(self.w_down.weight, std=ff ** -0.5)
        for norm in (self.attn_norm, self.mlp_norm):  # not the default ones: a kernel must read them
            nn.init.uniform_(norm.weight, 0.5, 1.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        nh = self.heads
        dh = d // nh
        inv_freq = 1.0 / (10000.0 ** (torch.arange(0, dh, 2, device=x.device, dtype=torch.float32) / dh))
        ang = torch.arange(s, device=x.device, dtype=torch.float32)[:, None] * inv_freq[None, :]
        ang = torch.cat([ang, ang], dim=-1)
        cos, sin = ang.cos(), ang.sin()
        h = self.attn_norm(x)
        q = rotate(self.wq(h).view(b, s, nh, dh).transpose(1, 2), cos, sin)
        k = rotate(self.wk(h).view(b, s, nh, dh).transpose(1, 2), cos, sin)
        v = self.wv(h).view(b, s, nh, dh).transpose(1, 2)
        scores = (q @ k.transpose(-2, -1)) * dh ** -0.5
        mask = torch.ones(s, s, dtype=torch.bool, device=x.device).triu(1)
        att = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
        x = x + self.wo((att @ v).transpose(1, 2).reshape(b, s, d))
        h = self.mlp_norm(x)
        return x + self.w_down(F.silu(self.w_gate(h)) * self.w_up(h))


def get_inputs():
    return [torch.randn(B, S, D)]


def get_init_inputs():
    return [D, HEADS, FF]
