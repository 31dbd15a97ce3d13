"""GPT-2 style pre-LN transformer block: x + CausalMHA(LN(x)), then x + MLP(LN(x)) with tanh-GELU."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "2 * B * S * 12 * D * D + 2 * B * S * S * D",
    "bytes": "4 * (2 * B * S * D + 12 * D * D + 13 * D)",
    "small": {"B": 2, "S": 8, "D": 32, "HEADS": 4},
    "atol": 2e-2, "rtol": 2e-2,
}

B = 8
S = 1024
D = 768
HEADS = 12


class Model(nn.Module):
    """One decoder-only block over [B, S, D]: causal attention with HEADS heads and a 4*D GELU MLP."""

    def __init__(self, d: int, heads: int):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.fc_out = nn.Linear(4 * d, d)
        nn.init.normal_(self.attn.weight, std=d ** -0.5)
        nn.init.normal_(self.proj.weight, std=d ** -0.5)
        with torch.no_grad():
            self.attn.weight[: 2 * d] *= 2.0
        # the norms' weights and biases off their defaults (1, 0): a kernel must read them
        for norm in (self.ln1, self.ln2):
            nn.init.uniform_(norm.weight, 0.5, 1.5)
            nn.init.uniform_(norm.bias, -0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        nh = self.heads
        dh = d // nh
        q, k, v = self.attn(self.ln1(x)).split(d, dim=2)
        q = q.view(b, s, nh, dh).transpose(1, 2)
        k = k.view(b, s, nh, dh).transpose(1, 2)
        v = v.view(b, s, nh, dh).transpose(1, 2)
        scores = (q @ k.transpose(-2, -1)) * (1.0 / dh ** 0.5)
        mask = torch.ones(s, s, dtype=torch.bool, device=x.device).triu(1)
        att = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, s, d)
        x = x + self.proj(y)
        h = nn.functional.gelu(self.fc(self.ln2(x)), approximate="tanh")
        return x + self.fc_out(h)


def get_inputs():
    return [torch.randn(B, S, D)]


def get_init_inputs():
    return [D, HEADS]
