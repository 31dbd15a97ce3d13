"""torch.topk along the last dimension, returning the K largest values of each row in descending order."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Index",
    "level": 1,
    "dtype": "float32",
    "flops": "B * N",
    "bytes": "4 * B * N + 4 * B * K",
    "small": {"B": 12, "N": 333, "K": 8},
}

B = 32768
N = 4096
K = 64


class Model(nn.Module):
    """Top-K values (sorted, largest first); values only, so ties need no index convention."""

    def __init__(self, k: int):
        super().__init__()
        self.k = k

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.topk(x, self.k, dim=-1, largest=True, sorted=True).values


def get_inputs():
    return [torch.randn(B, N)]


def get_init_inputs():
    return [K]
