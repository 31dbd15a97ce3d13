"""bf16 causal attention with an explicit mask: softmax(masked_fill(Q K^T * scale, j > i, -inf)) V."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Fusion",
    "dtype": "bfloat16",
    "flops": "2 * B * NH * S * S * D + 4 * B * NH * S * S",
    "bytes": "2 * 4 * B * NH * S * D",
    "small": {"B": 2, "NH": 2, "S": 36, "D": 16},
}

B = 4
NH = 16
S = 2048
D = 64


class Model(nn.Module):
    """Attention scores, upper-triangular mask filled with -inf, softmax, weighted sum of values."""

    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        s = q.shape[2]
        scores = torch.matmul(q, k.transpose(-2, -1)) * (q.shape[-1] ** -0.5)
        mask = torch.ones(s, s, dtype=torch.bool, device=q.device).triu(1)
        scores = scores.masked_fill(mask, float("-inf"))
        return torch.matmul(torch.softmax(scores, dim=-1), v)


def get_inputs():
    q = torch.randn(B, NH, S, D, dtype=torch.bfloat16) * 1.5
    k = torch.randn(B, NH, S, D, dtype=torch.bfloat16)
    # nonnegative values (uniform on [0, 2)): outputs are convex combinations with mean |output| ~ 1, far above atol,
    # and the bf16 score rounding of the reference cannot meet a cancelling (near-zero) output
    v = torch.rand(B, NH, S, D, dtype=torch.bfloat16) * 2
    return [q, k, v]


def get_init_inputs():
    return []
