"""Binary cross-entropy with logits against soft targets in [0, 1] (mean over all elements)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Loss",
    "dtype": "float32",
    "flops": "8 * B * D",
    "bytes": "4 * (2 * B * D + 1)",
    "small": {"B": 16, "D": 200},
}

B = 16384
D = 16384
#: the log-normal spread of each logit's scale (see get_inputs)
SPREAD = 2.0


class Model(nn.Module):
    """F.binary_cross_entropy_with_logits(logits, targets)."""

    def __init__(self):
        super().__init__()

    def forward(self, logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return F.binary_cross_entropy_with_logits(logits, targets)


def get_inputs():
    # each logit has its own log-normal scale: the mean then depends on every element, and a mean over part of
    # them, scaled up (a kernel that reads a subsample), is off by several times the tolerance at the default
    # shape; with one scale per row it was within about the tolerance (tests/test_redteam_round41_verdicts.py)
    logits = torch.randn(B, D) * torch.exp(SPREAD * torch.randn(B, D))
    targets = torch.rand(B, D)
    return [logits, targets]


def get_init_inputs():
    return []
