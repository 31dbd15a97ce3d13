"""Cross product of arrays of 3-vectors stored as (N, 3) rows (array-of-structures layout): torch.linalg.cross(a, b, dim=-1)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Math",
    "level": 1,
    "dtype": "float32",
    "flops": "9 * N",
    "bytes": "3 * 4 * 3 * N",
    "small": {"N": 1001},
}

N = 250_000_000


class Model(nn.Module):
    """c = a x b for each row."""

    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.linalg.cross(a, b, dim=-1)


def get_inputs():
    return [torch.randn(N, 3), torch.randn(N, 3)]


def get_init_inputs():
    return []
