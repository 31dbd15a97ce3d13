"""Mixture-of-experts FFN: router top-K experts per token (softmax over the chosen logits), SiLU expert MLPs, weighted sum.

Inputs and router weights lie on coarse binary grids so that the router logits are exact in any summation order (and
in TF32): expert selection is then identical for every faithful implementation."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "2 * B * S * D * EXPERTS + 2 * B * S * TOP_K * 2 * D * FF",
    "bytes": "4 * (2 * B * S * D + D * EXPERTS + EXPERTS * (2 * D * FF + FF + D))",
    "small": {"B": 2, "S": 8, "D": 32, "FF": 64, "EXPERTS": 4},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 4
S = 1024
D = 1024
FF = 2048
EXPERTS = 8
TOP_K = 2


class Model(nn.Module):
    """x [B, S, D] -> [B, S, D]; each token goes to its TOP_K highest-scoring experts."""

    def __init__(self, d: int, ff: int, experts: int, top_k: int):
        super().__init__()
        self.experts, self.top_k = experts, top_k
        self.router = nn.Linear(d, experts, bias=False)
        self.w1 = nn.Parameter(torch.randn(experts, d, ff) * d ** -0.5)
        self.b1 = nn.Parameter(torch.randn(experts, ff) * 0.1)
        self.w2 = nn.Parameter(torch.randn(experts, ff, d) * (2.0 / ff) ** 0.5)
        self.b2 = nn.Parameter(torch.randn(experts, d) * 0.1)
        with torch.no_grad():
            self.router.weight.copy_(torch.randint(-1024, 1025, (experts, d)).float() / 32768.0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        tokens = x.reshape(-1, d)
        logits, experts = self.router(tokens).topk(self.top_k, dim=-1)  # [T, K]
        weights = torch.softmax(logits, dim=-1)
        slots = tokens.new_zeros(tokens.shape[0], self.top_k, d)
        for e in range(self.experts):
            rows, ks = torch.nonzero(experts == e, as_tuple=True)
            if rows.numel() == 0:
                continue
            h = F.silu(tokens[rows] @ self.w1[e] + self.b1[e])
            slots[rows, ks] = (h @ self.w2[e] + self.b2[e]) * weights[rows, ks, None]
        return slots.sum(dim=1).view(b, s, d)


def get_inputs():
    return [torch.randint(-128, 128, (B, S, D)).float() / 64.0]


def get_init_inputs():
    return [D, FF, EXPERTS, TOP_K]
