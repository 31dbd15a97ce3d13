"""Elementwise Softplus with beta=2 and threshold=10: log(1 + exp(beta x)) / beta, linear where beta x > threshold."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Activation",
    "dtype": "float32",
    "flops": "5 * B * D",
    "bytes": "2 * B * D * 4",
    "small": {"B": 16, "D": 200},
}

B = 12288
D = 98304


class Model(nn.Module):
    """Applies Softplus with configurable beta and threshold."""

    def __init__(self, beta: float = 2.0, threshold: float = 10.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.softplus(x, beta=self.beta, threshold=self.threshold)


def get_inputs():
    return [torch.randn(B, D) * 3]


def get_init_inputs():
    return [2.0, 10.0]
