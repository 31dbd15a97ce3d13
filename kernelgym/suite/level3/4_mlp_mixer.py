"""MLP-Mixer: DEPTH layers of token-mixing and channel-mixing MLPs (pre-LN, GELU, residual) plus final LN."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "DEPTH * 4 * B * (C * P * TOKEN_HIDDEN + P * C * CHANNEL_HIDDEN)",
    "bytes": "4 * (2 * B * P * C + DEPTH * (2 * P * TOKEN_HIDDEN + 2 * C * CHANNEL_HIDDEN + TOKEN_HIDDEN"
             " + CHANNEL_HIDDEN + P + 5 * C) + 2 * C)",
    "small": {"B": 2, "P": 16, "C": 32, "TOKEN_HIDDEN": 16, "CHANNEL_HIDDEN": 64, "DEPTH": 1},
    "atol": 2e-2, "rtol": 2e-2,
}

B = 64
P = 196
C = 512
TOKEN_HIDDEN = 256
CHANNEL_HIDDEN = 2048
DEPTH = 2


class MixerLayer(nn.Module):
    def __init__(self, p: int, c: int, token_hidden: int, channel_hidden: int):
        super().__init__()
        self.norm1 = nn.LayerNorm(c)
        self.tok1 = nn.Linear(p, token_hidden)
        self.tok2 = nn.Linear(token_hidden, p)
        self.norm2 = nn.LayerNorm(c)
        self.ch1 = nn.Linear(c, channel_hidden)
        self.ch2 = nn.Linear(channel_hidden, c)
        self.act = nn.GELU()

    def forward(self, x):                       # x: [B, P, C]
        y = self.norm1(x).transpose(1, 2)       # [B, C, P]
        y = self.tok2(self.act(self.tok1(y)))
        x = x + y.transpose(1, 2)
        return x + self.ch2(self.act(self.ch1(self.norm2(x))))


class Model(nn.Module):
    """Mixer layers over a [B, P, C] patch sequence."""

    def __init__(self, p: int, c: int, token_hidden: int, channel_hidden: int, depth: int):
        super().__init__()
        self.layers = nn.ModuleList(MixerLayer(p, c, token_hidden, channel_hidden) for _ in range(depth))
        self.norm = nn.LayerNorm(c)
        # the norms' weights and biases off their defaults (1, 0): a kernel must read them
        for norm in [n for layer in self.layers for n in (layer.norm1, layer.norm2)] + [self.norm]:
            nn.init.uniform_(norm.weight, 0.5, 1.5)
            nn.init.uniform_(norm.bias, -0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = layer(x)
        return self.norm(x)


def get_inputs():
    return [torch.randn(B, P, C)]


def get_init_inputs():
    return [P, C, TOKEN_HIDDEN, CHANNEL_HIDDEN, DEPTH]
