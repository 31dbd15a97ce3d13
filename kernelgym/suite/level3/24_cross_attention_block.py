"""Pre-LN cross-attention block: queries from x attend to a longer context of a different width, residual add, then MLP."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "2 * B * T * D * D * 2 + 4 * B * S * DC * D + 4 * B * T * S * D + 2 * B * T * 8 * D * D",
    "bytes": "4 * (2 * B * T * D + B * S * DC + 2 * D * D + 2 * DC * D + 8 * D * D + 11 * D + 2 * DC)",
    "small": {"B": 2, "T": 8, "S": 12, "D": 32, "DC": 24, "HEADS": 4},
    "atol": 2e-2, "rtol": 2e-2,
}

B = 12
T = 256
S = 2048
D = 512
DC = 768
HEADS = 8


class Model(nn.Module):
    """forward(x [B, T, D], context [B, S, DC]) -> [B, T, D]."""

    def __init__(self, d: int, dc: int, heads: int):
        super().__init__()
        self.heads = heads
        self.norm_q = nn.LayerNorm(d)
        self.norm_c = nn.LayerNorm(dc)
        self.q = nn.Linear(d, d)
        self.k = nn.Linear(dc, d)
        self.v = nn.Linear(dc, d)
        self.o = nn.Linear(d, d)
        self.norm_mlp = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)
        nn.init.normal_(self.q.weight, std=2.0 * d ** -0.5)
        nn.init.normal_(self.k.weight, std=2.0 * dc ** -0.5)
        nn.init.normal_(self.v.weight, std=dc ** -0.5)
        nn.init.normal_(self.o.weight, std=d ** -0.5)
        # the norms' weights and biases off their defaults (1, 0): a kernel must read them
        for norm in (self.norm_q, self.norm_c, self.norm_mlp):
            nn.init.uniform_(norm.weight, 0.5, 1.5)
            nn.init.uniform_(norm.bias, -0.5, 0.5)

    def forward(self, x: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        s = context.shape[1]
        nh = self.heads
        dh = d // nh
        c = self.norm_c(context)
        q = self.q(self.norm_q(x)).view(b, t, nh, dh).transpose(1, 2)
        k = self.k(c).view(b, s, nh, dh).transpose(1, 2)
        v = self.v(c).view(b, s, nh, dh).transpose(1, 2)
        att = torch.softmax((q @ k.transpose(-2, -1)) * dh ** -0.5, dim=-1)
        x = x + self.o((att @ v).transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(torch.relu(self.fc1(self.norm_mlp(x))))


def get_inputs():
    return [torch.randn(B, T, D), torch.randn(B, S, DC)]


def get_init_inputs():
    return [D, DC, HEADS]
