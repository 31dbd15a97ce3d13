"""Linear to 2N features, GLU over the features (a * sigmoid(b)), then LayerNorm: LayerNorm(glu(Linear(x)))."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "4 * M * K * N + 14 * M * N",
    "bytes": "4 * (M * K + 2 * K * N + 4 * N + M * N)",
    "small": {"M": 30, "K": 48, "N": 40},
    "atol": 1e-2, "rtol": 1e-2,
}

M = 4096
K = 2048
N = 2048


class Model(nn.Module):
    """Linear producing value and gate halves, GLU, LayerNorm."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, 2 * out_features)
        self.norm = nn.LayerNorm(out_features)
        nn.init.uniform_(self.norm.weight, 0.5, 1.5)  # not the defaults (1, 0): a kernel must read them
        nn.init.uniform_(self.norm.bias, -0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(F.glu(self.fc(x), dim=-1))


def get_inputs():
    return [torch.randn(M, K)]


def get_init_inputs():
    return [K, N]
