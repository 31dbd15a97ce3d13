"""bf16 3D-tensor times matrix: (BATCH x S x K) @ (K x N), e.g. a bias-free projection of a token batch."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "bfloat16",
    "flops": "2 * BATCH * S * K * N",
    "bytes": "2 * (BATCH * S * K + K * N + BATCH * S * N)",
    "small": {"BATCH": 2, "S": 12, "K": 40, "N": 24},
}

BATCH = 8
S = 2000
K = 4096
N = 6144


class Model(nn.Module):
    """Multiplies every matrix slice of a 3D tensor by the same matrix."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, W: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, W)


def get_inputs():
    A = torch.randn(BATCH, S, K, dtype=torch.bfloat16)
    W = torch.randn(K, N, dtype=torch.bfloat16) / K ** 0.5
    return [A, W]


def get_init_inputs():
    return []
