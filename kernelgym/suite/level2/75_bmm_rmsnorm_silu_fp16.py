"""fp16 batched matmul, RMSNorm over the last dim with a learned scale, then SiLU: silu(rmsnorm(bmm(A, B)))."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float16",
    "flops": "2 * BT * M * K * N + 8 * BT * M * N",
    "bytes": "2 * (BT * M * K + BT * K * N + BT * M * N + N)",
    "small": {"BT": 2, "M": 24, "K": 32, "N": 40},
}

BT = 224
M = 2048
K = 1024
N = 1024


class Model(nn.Module):
    """bmm of two half-precision inputs, RMSNorm(N) with weight, SiLU."""

    def __init__(self, n):
        super().__init__()
        self.norm = nn.RMSNorm(n, eps=1e-6, dtype=torch.float16)
        with torch.no_grad():
            self.norm.weight.copy_(1 + torch.rand(n))

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return F.silu(self.norm(torch.bmm(a, b)))


def get_inputs():
    a = torch.randn(BT, M, K, dtype=torch.float16)
    b = torch.randn(BT, K, N, dtype=torch.float16) / K ** 0.5
    return [a, b]


def get_init_inputs():
    return [N]
