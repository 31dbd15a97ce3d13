"""Batched matmul plus residual input, then LayerNorm over the last dim: LayerNorm(bmm(A, B) + R)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * BT * M * K * N + 10 * BT * M * N",
    "bytes": "4 * (BT * M * K + BT * K * N + 2 * BT * M * N + 2 * N)",
    "small": {"BT": 3, "M": 20, "K": 40, "N": 48},
    "atol": 1e-2, "rtol": 1e-2,
}

BT = 32
M = 1024
K = 1024
N = 1024


class Model(nn.Module):
    """bmm, residual add, affine LayerNorm over N."""

    def __init__(self, n):
        super().__init__()
        self.norm = nn.LayerNorm(n)
        with torch.no_grad():
            self.norm.weight.copy_(1 + 0.5 * torch.randn(n))
            self.norm.bias.copy_(0.5 * torch.randn(n))

    def forward(self, a: torch.Tensor, b: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        return self.norm(torch.bmm(a, b) + r)


def get_inputs():
    a = torch.randn(BT, M, K)
    b = torch.randn(BT, K, N) / K ** 0.5
    r = torch.randn(BT, M, N)
    return [a, b, r]


def get_init_inputs():
    return [N]
