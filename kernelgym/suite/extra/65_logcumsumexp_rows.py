"""Row-wise log-cumulative-sum-exp scan: out[b, i] = log(sum_{j <= i} exp(x[b, j])) (torch.logcumsumexp), numerically stable."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Reduce",
    "level": 1,
    "dtype": "float32",
    "flops": "4 * B * N",
    "bytes": "2 * 4 * B * N",
    "small": {"B": 6, "N": 300},
}

B = 12288
N = 16384


class Model(nn.Module):
    """A scan with the (max, rescaled sum) monoid; values grow to ~log(N) + max(x), errors stay ~1e-6 relative."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.logcumsumexp(x, dim=-1)


def get_inputs():
    # a drift makes the running max change along the row
    x = torch.randn(B, N) * 2.0 + torch.linspace(-5.0, 5.0, N)
    return [x]


def get_init_inputs():
    return []
