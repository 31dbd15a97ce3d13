"""Label-smoothed one-hot targets: out[i, c] = 1 - EPS + EPS / C if c == label[i] else EPS / C; rows whose label is -1 (ignored) are all zero.

The background value EPS / C is tiny (3e-6), so the tolerance is tight (atol 1e-8, rtol 1e-5): any float32
evaluation of the two values is within an ulp of the reference.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Index",
    "level": 1,
    "dtype": "float32",
    "flops": "2 * N * C",
    "bytes": "8 * N + 4 * N * C",
    "small": {"N": 40, "C": 129},
    "atol": 1e-8,
    "rtol": 1e-5,
}

N = 4096
C = 32000
EPS = 0.1


class Model(nn.Module):
    """F.one_hot followed by label smoothing and an ignore mask."""

    def __init__(self, num_classes: int, eps: float):
        super().__init__()
        self.num_classes, self.eps = num_classes, eps

    def forward(self, labels: torch.Tensor) -> torch.Tensor:
        valid = labels >= 0
        oh = F.one_hot(torch.where(valid, labels, torch.zeros_like(labels)), self.num_classes).to(torch.float32)
        smoothed = oh * (1.0 - self.eps) + self.eps / self.num_classes
        return smoothed * valid.unsqueeze(1).to(torch.float32)


def get_inputs():
    labels = torch.randint(0, C, (N,))
    return [torch.where(torch.rand(N) < 0.1, torch.full_like(labels, -1), labels)]


def get_init_inputs():
    return [C, EPS]
