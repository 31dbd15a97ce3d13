"""Per-row histogram of integer codes (a batched torch.bincount written as scatter_add of ones); int64 counts, exact."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Index",
    "level": 1,
    "dtype": "int64",
    "flops": "B * N",
    "bytes": "8 * B * N + 8 * B * NB",
    "small": {"B": 12, "N": 500, "NB": 37},
}

B = 24576
N = 8192
NB = 256


class Model(nn.Module):
    """counts[b, v] = #{n : x[b, n] == v}."""

    def __init__(self, num_bins: int):
        super().__init__()
        self.num_bins = num_bins

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        counts = torch.zeros(x.shape[0], self.num_bins, dtype=torch.int64, device=x.device)
        return counts.scatter_add_(1, x, torch.ones_like(x))


def get_inputs():
    # skewed codes (a sum of two uniforms folded into range), so counts differ across bins
    x = (torch.randint(0, NB, (B, N)) + torch.randint(0, NB, (B, N))) % NB
    x = torch.where(torch.rand(B, N) < 0.2, x // 4, x)
    return [x]


def get_init_inputs():
    return [NB]
