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


class Model(nn.Module):
    """torch.clamp(1 - predictions * labels, min=0).mean()."""

    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return torch.clamp(1 - predictions * labels, min=0).mean()


def get_inputs():
    predictions = torch.randn(B, D) * (torch.rand(B, 1) * 3)
    labels = torch.randint(0, 2, (B, D)).float() * 2 - 1
    return [predictions, labels]


def get_init_inputs():
    return []
