"""Linear with a low-rank (LoRA) adapter branch, then SiLU: silu(W x + b + s * B(A x))."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * M * K * N + 2 * M * K * R + 2 * M * R * N + 6 * M * N",
    "bytes": "4 * (M * K + K * N + N + K * R + R * N + M * N)",
    "small": {"M": 36, "K": 48, "N": 40, "R": 4},
    "atol": 1e-2, "rtol": 1e-2,
}

M = 4096
K = 2048
N = 4096
R = 16
LORA_SCALE = 2.0


class Model(nn.Module):
    """Base Linear plus scaled rank-R update (two small Linears), SiLU."""

    def __init__(self, in_features, out_features, rank, lora_scale):
        super().__init__()
        self.base = nn.Linear(in_features, out_features)
        self.lora_a = nn.Linear(in_features, rank, bias=False)
        self.lora_b = nn.Linear(rank, out_features, bias=False)
        self.lora_scale = lora_scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.silu(self.base(x) + self.lora_scale * self.lora_b(self.lora_a(x)))


def get_inputs():
    return [torch.randn(M, K)]


def get_init_inputs():
    return [K, N, R, LORA_SCALE]
