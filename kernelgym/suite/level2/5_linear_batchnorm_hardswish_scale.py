"""Linear layer, eval-mode BatchNorm1d (running statistics), HardSwish and a constant scale."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * M * N * K + 10 * M * N",
    "bytes": "4 * (M * K + N * K + 5 * N + M * N)",
    "small": {"M": 64, "K": 32, "N": 40},
    "atol": 1e-2, "rtol": 1e-2,
}

M = 8192
K = 2048
N = 2048
SCALE = 2.0


class Model(nn.Module):
    """out = hardswish(batchnorm_eval(x @ W^T + b)) * SCALE."""

    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.bn = nn.BatchNorm1d(out_features, eps=1e-5)
        with torch.no_grad():
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.uniform_(-0.3, 0.3)
            self.bn.running_mean.uniform_(-0.2, 0.2)
            self.bn.running_var.uniform_(0.2, 0.6)
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.linear(x)
        y = F.batch_norm(y, self.bn.running_mean, self.bn.running_var, self.bn.weight, self.bn.bias,
                         training=False, eps=self.bn.eps)
        return F.hardswish(y) * self.scale


def get_inputs():
    return [torch.randn(M, K)]


def get_init_inputs():
    return [K, N, SCALE]
