"""Batched pairwise Euclidean distances torch.cdist(x1, x2) between two point sets in D dimensions.

Points are scaled by 1/sqrt(D) so distances are O(1) (around sqrt(2)); a matmul-based kernel
(||a||^2 + ||b||^2 - 2 a.b with TF32 tensor cores) meets atol = rtol = 1e-2.
"""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Math",
    "level": 1,
    "dtype": "float32",
    "flops": "3 * BATCH * P * Q * D",
    "bytes": "4 * BATCH * (P * D + Q * D + P * Q)",
    "small": {"BATCH": 2, "P": 40, "Q": 56, "D": 24},
    "atol": 1e-2,
    "rtol": 1e-2,
}

BATCH = 16
P = 4096
Q = 3000
D = 128


class Model(nn.Module):
    """out[b, i, j] = ||x1[b, i] - x2[b, j]||_2."""

    def __init__(self):
        super().__init__()

    def forward(self, x1: torch.Tensor, x2: torch.Tensor) -> torch.Tensor:
        return torch.cdist(x1, x2, p=2.0)


def get_inputs():
    return [torch.randn(BATCH, P, D) / D ** 0.5, torch.randn(BATCH, Q, D) / D ** 0.5]


def get_init_inputs():
    return []
