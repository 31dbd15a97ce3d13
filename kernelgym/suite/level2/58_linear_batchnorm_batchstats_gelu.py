"""Linear, BatchNorm1d normalised with the current batch's statistics (no running stats), then GELU."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * M * K * N + 16 * M * N",
    "bytes": "4 * (M * K + K * N + 3 * N + M * N)",
    "small": {"M": 48, "K": 40, "N": 36},
    "atol": 1e-2, "rtol": 1e-2,
}

M = 8192
K = 2048
N = 2048


class Model(nn.Module):
    """Linear, per-feature normalisation over the batch dimension with affine scale/shift, exact GELU."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)
        self.bn = nn.BatchNorm1d(out_features, track_running_stats=False)
        with torch.no_grad():
            self.bn.weight.copy_(1 + 0.2 * torch.randn(out_features))
            self.bn.bias.copy_(0.2 * torch.randn(out_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.bn(self.fc(x)))


def get_inputs():
    return [torch.randn(M, K)]


def get_init_inputs():
    return [K, N]
