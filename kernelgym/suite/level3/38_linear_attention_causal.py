"""Causal linear attention (elu+1 features): cumsum of phi(k) v^T and phi(k), normalised readout, per-head RMSNorm, out-proj."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Reduce",
    "dtype": "float32",
    "flops": "2 * B * T * 4 * D * D + 6 * B * T * D * (D // HEADS)",
    "bytes": "4 * (2 * B * T * D + 4 * D * D + 2 * D)",
    "small": {"B": 2, "T": 8, "D": 32, "HEADS": 4},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 8
T = 1024
D = 512
HEADS = 8


class Model(nn.Module):
    """x [B, T, D] -> [B, T, D]; y_t = phi(q_t) S_t / (phi(q_t) . z_t), S_t = sum_{i<=t} phi(k_i) v_i^T, per head."""

    def __init__(self, d: int, heads: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.head_norm = nn.Parameter(torch.ones(d // heads))
        self.out = nn.Linear(d, d)
        nn.init.normal_(self.qkv.weight, std=d ** -0.5)
        nn.init.normal_(self.out.weight, std=d ** -0.5)
        nn.init.uniform_(self.head_norm, 0.5, 1.5)  # not the default ones: a kernel must read it

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        dh = d // self.heads
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, dh).permute(2, 0, 3, 1, 4)   # [B, H, T, dh]
        q, k = F.elu(q) + 1.0, F.elu(k) + 1.0
        kv = torch.cumsum(k.unsqueeze(-1) * v.unsqueeze(-2), dim=2)              # [B, H, T, dh, dh]
        z = torch.cumsum(k, dim=2)                                               # [B, H, T, dh]
        num = (q.unsqueeze(-2) @ kv).squeeze(-2)                                 # [B, H, T, dh]
        den = (q * z).sum(-1, keepdim=True) + 1e-6
        y = num / den
        y = y * torch.rsqrt(y.pow(2).mean(-1, keepdim=True) + 1e-6) * self.head_norm
        y = y.transpose(1, 2).reshape(b, t, d)
        return self.out(y)


def get_inputs():
    return [torch.randn(B, T, D)]


def get_init_inputs():
    return [D, HEADS]
