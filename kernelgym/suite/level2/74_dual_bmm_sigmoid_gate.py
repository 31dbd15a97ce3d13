"""Gated batched matmul sharing one input: bmm(A, W) * sigmoid(bmm(A, V))."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "4 * BT * M * K * N + 5 * BT * M * N",
    "bytes": "4 * (BT * M * K + 2 * BT * K * N + BT * M * N)",
    "small": {"BT": 2, "M": 24, "K": 40, "N": 36},
    "atol": 1e-2, "rtol": 1e-2,
}

BT = 8
M = 2048
K = 1024
N = 1024


class Model(nn.Module):
    """Two batched products of the same left operand, one gated by the sigmoid of the other."""

    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, w: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return torch.bmm(a, w) * torch.sigmoid(torch.bmm(a, v))


def get_inputs():
    a = torch.randn(BT, M, K)
    w = torch.randn(BT, K, N) / K ** 0.5
    v = torch.randn(BT, K, N) * (2 / K ** 0.5)
    return [a, w, v]


def get_init_inputs():
    return []
