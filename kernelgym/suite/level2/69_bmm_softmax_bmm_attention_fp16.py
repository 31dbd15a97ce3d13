"""fp16 scaled dot-product attention written with bmm: softmax(Q K^T / sqrt(d)) V over (batch * heads)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float16",
    "flops": "4 * BH * S * S * D + 5 * BH * S * S",
    "bytes": "2 * 4 * BH * S * D",
    "small": {"BH": 3, "S": 40, "D": 16},
}

BH = 96
S = 2048
D = 64


class Model(nn.Module):
    """Scores with bmm, scale, softmax over keys, weighted sum of values with bmm."""

    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        scores = torch.bmm(q, k.transpose(1, 2)) * (q.shape[-1] ** -0.5)
        return torch.bmm(torch.softmax(scores, dim=-1), v)


def get_inputs():
    q = torch.randn(BH, S, D, dtype=torch.float16) * 2
    k = torch.randn(BH, S, D, dtype=torch.float16)
    # nonnegative values (uniform on [0, 2)): outputs are convex combinations with mean |output| ~ 1, far above atol,
    # and rounding errors in the probabilities cannot meet a cancelling (near-zero) output
    v = torch.rand(BH, S, D, dtype=torch.float16) * 2
    return [q, k, v]


def get_init_inputs():
    return []
