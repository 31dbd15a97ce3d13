"""Post-LN transformer encoder layer: x = LN(x + MHA(x)); x = LN(x + W2 ReLU(W1 x))."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "2 * B * S * (4 * D * D + 2 * D * FF) + 4 * B * S * S * D",
    "bytes": "4 * (2 * B * S * D + 4 * D * D + 2 * D * FF + FF + 9 * D)",
    "small": {"B": 2, "S": 8, "D": 32, "HEADS": 4, "FF": 64},
    "atol": 2e-2, "rtol": 2e-2,
}

B = 16
S = 512
D = 512
HEADS = 8
FF = 2048


class Model(nn.Module):
    """Encoder layer over [B, S, D] with separate Q/K/V projections and a ReLU feed-forward network."""

    def __init__(self, d: int, heads: int, ff: int):
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(d, d)
        self.k = nn.Linear(d, d)
        self.v = nn.Linear(d, d)
        self.o = nn.Linear(d, d)
        self.norm1 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, ff)
        self.fc2 = nn.Linear(ff, d)
        self.norm2 = nn.LayerNorm(d)
        for lin, std in ((self.q, 2.0), (self.k, 2.0), (self.v, 1.0), (self.o, 1.0)):
            nn.init.normal_(lin.weight, std=std * d ** -0.5)
        # the norms' weights and biases off their defaults (1, 0): a kernel must read them
        for norm in (self.norm1, self.norm2):
            nn.init.uniform_(norm.weight, 0.5, 1.5)
            nn.init.uniform_(norm.bias, -0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        nh = self.heads
        dh = d // nh

        def heads(t):
            return t.view(b, s, nh, dh).transpose(1, 2)

        q, k, v = heads(self.q(x)), heads(self.k(x)), heads(self.v(x))
        att = torch.softmax((q @ k.transpose(-2, -1)) / dh ** 0.5, dim=-1)
        a = self.o((att @ v).transpose(1, 2).reshape(b, s, d))
        x = self.norm1(x + a)
        return self.norm2(x + self.fc2(torch.relu(self.fc1(x))))


def get_inputs():
    return [torch.randn(B, S, D)]


def get_init_inputs():
    return [D, HEADS, FF]
