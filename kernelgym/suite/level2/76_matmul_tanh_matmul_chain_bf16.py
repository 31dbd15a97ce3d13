"""bf16 back-to-back matmuls with a tanh in between: tanh(A @ B) @ C."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Fusion",
    "dtype": "bfloat16",
    "flops": "2 * M * H * (K + N) + 2 * M * H",
    "bytes": "2 * (M * K + K * H + H * N + M * N)",
    "small": {"M": 36, "K": 24, "H": 48, "N": 20},
}

M = 98304
K = 1024
H = 4096
N = 1024


class Model(nn.Module):
    """Two chained matrix products of three inputs with a tanh nonlinearity on the intermediate."""

    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        return torch.tanh(a @ b) @ c


def get_inputs():
    a = torch.randn(M, K, dtype=torch.bfloat16)
    b = torch.randn(K, H, dtype=torch.bfloat16) * (1.5 / K ** 0.5)
    c = torch.randn(H, N, dtype=torch.bfloat16) * (1.5 / H ** 0.5)
    return [a, b, c]


def get_init_inputs():
    return []
