"""nn.EmbeddingBag(mode="mean") over fixed-length bags: out[b] = mean_l weight[idx[b, l]]."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Index",
    "level": 1,
    "dtype": "float32",
    "flops": "B * L * D",
    "bytes": "8 * B * L + 4 * B * L * D + 4 * B * D",
    "small": {"V": 200, "D": 48, "B": 20, "L": 7},
}

V = 1_000_000
D = 128
B = 196608
L = 40


class Model(nn.Module):
    """Mean of L embedding rows per bag."""

    def __init__(self, num_embeddings: int, dim: int):
        super().__init__()
        self.bag = nn.EmbeddingBag(num_embeddings, dim, mode="mean")

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        return self.bag(idx)


def get_inputs():
    return [torch.randint(0, V, (B, L))]


def get_init_inputs():
    return [V, D]
