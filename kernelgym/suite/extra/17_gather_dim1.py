"""torch.gather along dim 1: out[b, j] = x[b, idx[b, j]] with random (repeating, unsorted) int64 indices."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Index",
    "level": 1,
    "dtype": "float32",
    "flops": "0",
    "bytes": "4 * B * N + 8 * B * J + 4 * B * J",
    "small": {"B": 24, "N": 300, "J": 77},
}

B = 24576
N = 32768
J = 8192


class Model(nn.Module):
    """Row-wise gather."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
        return torch.gather(x, 1, idx)


def get_inputs():
    return [torch.randn(B, N), torch.randint(0, N, (B, J))]


def get_init_inputs():
    return []
