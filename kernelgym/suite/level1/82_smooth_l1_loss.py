"""Smooth L1 (Huber-style) loss with beta 0.5 between two 3D tensors, averaged to a scalar."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Loss",
    "dtype": "float32",
    "flops": "5 * B * T * D",
    "bytes": "4 * (2 * B * T * D + 1)",
    "small": {"B": 2, "T": 8, "D": 150},
}

B = 64
T = 512
D = 8192
BETA = 0.5
#: the log-normal spread of each element's residual scale (see get_inputs)
SPREAD = 2.0


class Model(nn.Module):
    """nn.SmoothL1Loss(beta=0.5): 0.5 * d^2 / beta where |d| < beta, |d| - 0.5 * beta elsewhere; mean."""

    def __init__(self, beta: float):
        super().__init__()
        self.loss = nn.SmoothL1Loss(beta=beta)

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return self.loss(predictions, targets)


def get_inputs():
    predictions = torch.randn(B, T, D)
    # each element's residual has its own log-normal scale (heavy-tailed, as regression residuals often are): the
    # mean then depends on every element, and a mean over part of them, scaled up (a kernel that reads a
    # subsample), is off by several times the tolerance at the default shape; with one scale per row of D it
    # was within a fraction of it (tests/test_redteam_round41_verdicts.py)
    targets = predictions + torch.randn(B, T, D) * torch.exp(SPREAD * torch.randn(B, T, D))
    return [predictions, targets]


def get_init_inputs():
    return [BETA]
