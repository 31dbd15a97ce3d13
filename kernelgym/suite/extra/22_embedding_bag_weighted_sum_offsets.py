"""Variable-length embedding bags with per-sample weights (F.embedding_bag, mode="sum", 1-D indices + offsets; empty bags give zeros)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Index",
    "level": 1,
    "dtype": "float32",
    "flops": "2 * NNZ * D",
    "bytes": "12 * NNZ + 8 * B + 4 * NNZ * D + 4 * B * D",
    "small": {"V": 300, "D": 40, "B": 25, "NNZ": 200},
}

V = 2_000_000
D = 64
B = 131072
NNZ = 4_000_000


class Model(nn.Module):
    """out[b] = sum_{i in [offsets[b], offsets[b+1])} w[i] * table[indices[i]] (last bag ends at NNZ)."""

    def __init__(self, num_embeddings: int, dim: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(num_embeddings, dim))

    def forward(self, indices: torch.Tensor, offsets: torch.Tensor, per_sample_weights: torch.Tensor) -> torch.Tensor:
        return F.embedding_bag(indices, self.weight, offsets, mode="sum", per_sample_weights=per_sample_weights)


def get_inputs():
    indices = torch.randint(0, V, (NNZ,))
    offsets = torch.sort(torch.randint(0, NNZ + 1, (B,))).values   # bag sizes vary; some bags are empty
    offsets[0] = 0
    per_sample_weights = torch.rand(NNZ) * 2.0 - 0.5
    return [indices, offsets, per_sample_weights]


def get_init_inputs():
    return [V, D]
