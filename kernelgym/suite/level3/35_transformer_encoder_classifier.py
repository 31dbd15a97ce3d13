"""Text classifier: token + learned position embeddings, DEPTH pre-LN encoder layers (GELU), final LN, mean-pool, linear head."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "DEPTH * (2 * B * S * (4 * D * D + 2 * D * FF) + 4 * B * S * S * D) + 2 * B * D * CLASSES",
    "bytes": "8 * B * S + 4 * (B * S * D + S * D + DEPTH * (4 * D * D + 2 * D * FF + FF + 9 * D)"
             " + 2 * D + D * CLASSES + B * CLASSES)",
    "small": {"B": 2, "S": 8, "VOCAB": 50, "D": 32, "HEADS": 4, "DEPTH": 1, "FF": 64, "CLASSES": 5},
    "atol": 2e-2, "rtol": 2e-2,
}

B = 32
S = 256
VOCAB = 8000
D = 384
HEADS = 6
DEPTH = 4
FF = 1536
CLASSES = 16


class EncoderLayer(nn.Module):
    def __init__(self, d: int, heads: int, ff: int):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.ff1 = nn.Linear(d, ff)
        self.ff2 = nn.Linear(ff, d)
        nn.init.normal_(self.qkv.weight, std=d ** -0.5)
        nn.init.normal_(self.out.weight, std=d ** -0.5)
        with torch.no_grad():
            self.qkv.weight[: 2 * d] *= 2.0

    def forward(self, x):
        b, s, d = x.shape
        dh = d // self.heads
        q, k, v = self.qkv(self.ln1(x)).view(b, s, 3, self.heads, dh).permute(2, 0, 3, 1, 4)
        att = torch.softmax((q @ k.transpose(-2, -1)) * dh ** -0.5, dim=-1)
        x = x + self.out((att @ v).transpose(1, 2).reshape(b, s, d))
        return x + self.ff2(nn.functional.gelu(self.ff1(self.ln2(x))))


class Model(nn.Module):
    """tokens [B, S] (int64) -> class logits [B, CLASSES]."""

    def __init__(self, vocab: int, seq: int, d: int, heads: int, depth: int, ff: int, classes: int):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(seq, d) * 0.5)
        self.layers = nn.ModuleList(EncoderLayer(d, heads, ff) for _ in range(depth))
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, classes)
        nn.init.normal_(self.head.weight, std=4.0 * d ** -0.5)
        # the norms' weights and biases off their defaults (1, 0): a kernel must read them
        for norm in [n for layer in self.layers for n in (layer.ln1, layer.ln2)] + [self.norm]:
            nn.init.uniform_(norm.weight, 0.5, 1.5)
            nn.init.uniform_(norm.bias, -0.5, 0.5)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.tok(tokens) + self.pos
        for layer in self.layers:
            x = layer(x)
        return self.head(self.norm(x).mean(dim=1))


def get_inputs():
    return [torch.randint(0, VOCAB, (B, S))]


def get_init_inputs():
    return [VOCAB, S, D, HEADS, DEPTH, FF, CLASSES]
