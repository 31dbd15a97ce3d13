"""Two-layer MLP classifier: log_softmax(W2 hardswish(W1 x + b1) + b2) over classes."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * M * (K * H + H * C) + 6 * M * H + 6 * M * C",
    "bytes": "4 * (M * K + K * H + H + H * C + C + M * C)",
    "small": {"M": 20, "K": 48, "H": 64, "C": 30},
    "atol": 1e-2, "rtol": 1e-2,
}

M = 4096
K = 2048
H = 4096
C = 1000


class Model(nn.Module):
    """Linear, Hardswish, Linear to class logits, log-softmax."""

    def __init__(self, in_features, hidden, num_classes):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden)
        self.fc2 = nn.Linear(hidden, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.log_softmax(self.fc2(F.hardswish(self.fc1(x))), dim=1)


def get_inputs():
    return [torch.randn(M, K) * 3]


def get_init_inputs():
    return [K, H, C]
