"""Scaled dot-product attention in bfloat16 (head dim 128), written with plain torch ops."""
import math

import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "bfloat16",
    "flops": "4 * B * H * S * S * D + 5 * B * H * S * S",
    "bytes": "2 * 4 * B * H * S * D",
    "small": {"B": 1, "H": 2, "S": 48, "D": 32},
    # the eager reference rounds the scores to bf16 before the softmax (errors up to ~0.06 against exact
    # attention on these inputs); the tolerance admits any implementation at least that accurate
    "atol": 3e-2, "rtol": 6e-2,
}

B = 16
H = 32
S = 1024
D = 128


class Model(nn.Module):
    """Non-causal bf16 attention over (B, H, S, D) tensors."""

    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        scores = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(q.shape[-1]))
        probs = torch.softmax(scores, dim=-1)
        return torch.matmul(probs, v)


def get_inputs():
    # queries and keys with std 1.5 give moderately peaked attention; values uniform on [0, 2) make every output a
    # convex combination of nonnegative values (mean |output| ~ 1, no cancellation), so the bf16 reference's
    # score-rounding error stays relative to the output instead of dominating near-zero outputs
    q = torch.randn(B, H, S, D, dtype=torch.bfloat16) * 1.5
    k = torch.randn(B, H, S, D, dtype=torch.bfloat16) * 1.5
    v = torch.rand(B, H, S, D, dtype=torch.bfloat16) * 2
    return [q, k, v]


def get_init_inputs():
    return []
