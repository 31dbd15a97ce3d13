"""Multi-head self-attention: fused QKV projection, softmax(QK^T/sqrt(d))V per head, output projection."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "2 * B * S * D * 4 * D + 4 * B * S * S * D",
    "bytes": "4 * (2 * B * S * D + 4 * D * D + 4 * D)",
    "small": {"B": 2, "S": 8, "D": 32, "HEADS": 4},
    "atol": 2e-2, "rtol": 2e-2,
}

B = 8
S = 1024
D = 768
HEADS = 12


class Model(nn.Module):
    """Bidirectional (unmasked) attention over a [B, S, D] sequence with HEADS heads."""

    def __init__(self, d: int, heads: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        # q/k rows get a larger std so that the attention is peaked rather than uniform
        nn.init.normal_(self.qkv.weight, std=d ** -0.5)
        nn.init.normal_(self.proj.weight, std=d ** -0.5)
        with torch.no_grad():
            self.qkv.weight[: 2 * d] *= 2.0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        dh = d // self.heads
        qkv = self.qkv(x).view(b, s, 3, self.heads, dh).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]                       # [B, H, S, dh]
        att = torch.softmax(q @ k.transpose(-2, -1) * dh ** -0.5, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, s, d)
        return self.proj(y)


def get_inputs():
    return [torch.randn(B, S, D)]


def get_init_inputs():
    return [D, HEADS]
