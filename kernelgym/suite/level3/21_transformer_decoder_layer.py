"""Post-LN transformer decoder layer: causal self-attention, cross-attention to encoder memory, GELU feed-forward."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "2 * B * T * (6 * D * D + 2 * D * FF) + 4 * B * S * D * D + 2 * B * T * T * D + 4 * B * T * S * D",
    "bytes": "4 * (2 * B * T * D + B * S * D + 8 * D * D + 2 * D * FF + FF + 14 * D)",
    "small": {"B": 2, "T": 8, "S": 12, "D": 32, "HEADS": 4, "FF": 64},
    "atol": 2e-2, "rtol": 2e-2,
}

B = 12
T = 512
S = 768
D = 512
HEADS = 8
FF = 2048


class Attention(nn.Module):
    def __init__(self, d: int, heads: int):
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(d, d)
        self.kv = nn.Linear(d, 2 * d)
        self.o = nn.Linear(d, d)
        nn.init.normal_(self.q.weight, std=2.0 * d ** -0.5)
        nn.init.normal_(self.kv.weight, std=d ** -0.5)
        nn.init.normal_(self.o.weight, std=d ** -0.5)
        with torch.no_grad():
            self.kv.weight[:d] *= 2.0

    def forward(self, x, mem, causal: bool):
        b, t, d = x.shape
        s = mem.shape[1]
        nh = self.heads
        dh = d // nh
        q = self.q(x).view(b, t, nh, dh).transpose(1, 2)
        k, v = self.kv(mem).view(b, s, 2, nh, dh).permute(2, 0, 3, 1, 4)
        scores = (q @ k.transpose(-2, -1)) * dh ** -0.5
        if causal:
            mask = torch.ones(t, s, dtype=torch.bool, device=x.device).triu(1)
            scores = scores.masked_fill(mask, float("-inf"))
        y = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(b, t, d)
        return self.o(y)


class Model(nn.Module):
    """forward(tgt [B, T, D], memory [B, S, D]) -> [B, T, D]."""

    def __init__(self, d: int, heads: int, ff: int):
        super().__init__()
        self.self_attn = Attention(d, heads)
        self.norm1 = nn.LayerNorm(d)
        self.cross_attn = Attention(d, heads)
        self.norm2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, ff)
        self.fc2 = nn.Linear(ff, d)
        self.norm3 = nn.LayerNorm(d)
        # the norms' weights and biases off their defaults (1, 0): a kernel must read them
        for norm in (self.norm1, self.norm2, self.norm3):
            nn.init.uniform_(norm.weight, 0.5, 1.5)
            nn.init.uniform_(norm.bias, -0.5, 0.5)

    def forward(self, tgt: torch.Tensor, memory: torch.Tensor) -> torch.Tensor:
        x = self.norm1(tgt + self.self_attn(tgt, tgt, causal=True))
        x = self.norm2(x + self.cross_attn(x, memory, causal=False))
        return self.norm3(x + self.fc2(torch.nn.functional.gelu(self.fc1(x))))


def get_inputs():
    return [torch.randn(B, T, D), torch.randn(B, S, D)]


def get_init_inputs():
    return [D, HEADS, FF]
