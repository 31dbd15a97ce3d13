"""Binary hinge loss mean(max(0, 1 - y * f)) with labels y in {-1, +1}."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Loss",
    "dtype": "float32",
    "flops": "3 * B * D",
    "bytes": "4 * (2 * B * D + 1)",
    "small": {"B": 16, "D": 200},
}

B = 65536
D = 4096
#: the log-normal spread of each prediction's scale (see get_inputs)
SPREAD = 2.0


class Model(nn.Module):
    """torch.clamp(1 - predictions * labels, min=0).mean()."""

    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return torch.clamp(1 - predictions * labels, min=0).mean()


def get_inputs():
    # each prediction has its own log-normal scale: the mean then depends on every element, and a mean over part
    # of them, scaled up (a kernel that reads a subsample), is off by several times the tolerance at the default
    # shape; with one scale per row it was within a fraction of it (tests/test_redteam_round41_verdicts.py)
    predictions = torch.randn(B, D) * torch.exp(SPREAD * torch.randn(B, D))
    labels = torch.randint(0, 2, (B, D)).float() * 2 - 1
    return [predictions, labels]


def get_init_inputs():
    return []
