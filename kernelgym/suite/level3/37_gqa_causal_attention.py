"""Grouped-query causal attention: HQ query heads share HKV key/value heads; projections in and out."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "2 * B * S * D * (2 * D + 2 * HKV * (D // HQ)) + 2 * B * S * S * D",
    "bytes": "4 * (2 * B * S * D + 2 * D * D + 2 * D * HKV * (D // HQ))",
    "small": {"B": 2, "S": 8, "D": 32, "HQ": 4, "HKV": 2},
    "atol": 2e-2, "rtol": 2e-2,
}

B = 4
S = 2048
D = 1024
HQ = 16
HKV = 4


class Model(nn.Module):
    """x [B, S, D] -> [B, S, D]; head dim D // HQ, each KV head serves HQ // HKV query heads."""

    def __init__(self, d: int, hq: int, hkv: int):
        super().__init__()
        self.hq, self.hkv = hq, hkv
        dh = d // hq
        self.q = nn.Linear(d, d, bias=False)
        self.k = nn.Linear(d, hkv * dh, bias=False)
        self.v = nn.Linear(d, hkv * dh, bias=False)
        self.o = nn.Linear(d, d, bias=False)
        for lin, std in ((self.q, 2.0), (self.k, 2.0), (self.v, 1.0), (self.o, 1.0)):
            nn.init.normal_(lin.weight, std=std * d ** -0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        hq, hkv = self.hq, self.hkv
        dh = d // hq
        q = self.q(x).view(b, s, hq, dh).transpose(1, 2)
        k = self.k(x).view(b, s, hkv, dh).transpose(1, 2).repeat_interleave(hq // hkv, dim=1)
        v = self.v(x).view(b, s, hkv, dh).transpose(1, 2).repeat_interleave(hq // hkv, dim=1)
        scores = (q @ k.transpose(-2, -1)) * dh ** -0.5
        mask = torch.ones(s, s, dtype=torch.bool, device=x.device).triu(1)
        att = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
        return self.o((att @ v).transpose(1, 2).reshape(b, s, d))


def get_inputs():
    return [torch.randn(B, S, D)]


def get_init_inputs():
    return [D, HQ, HKV]
