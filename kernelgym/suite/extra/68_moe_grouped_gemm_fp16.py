"""Grouped GEMM for mixture-of-experts: token rows sorted by expert, segment e (rows offsets[e]:offsets[e+1], variable sizes, possibly empty) multiplied by expert weight W[e] (K, N); fp16."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "level": 1,
    "dtype": "float16",
    "flops": "2 * T * K * N",
    "bytes": "2 * (T * K + E * K * N + T * N) + 8 * (E + 1)",
    "small": {"T": 60, "K": 32, "N": 48, "E": 4},
}

T = 32768
K = 2048
N = 2816
E = 8


class Model(nn.Module):
    """out[offsets[e]:offsets[e+1]] = x[offsets[e]:offsets[e+1]] @ W[e] with fp32 accumulation."""

    def __init__(self, num_experts: int, in_features: int, out_features: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(num_experts, in_features, out_features) / in_features ** 0.5)

    def forward(self, x: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        out = torch.empty(x.shape[0], self.weight.shape[2], dtype=x.dtype, device=x.device)
        bounds = offsets.tolist()
        for e in range(self.weight.shape[0]):
            s, t = bounds[e], bounds[e + 1]
            out[s:t] = x[s:t] @ self.weight[e].to(x.dtype)
        return out


def get_inputs():
    x = torch.randn(T, K, dtype=torch.float16)
    cuts = torch.sort(torch.randint(0, T + 1, (E - 1,))).values
    offsets = torch.cat((torch.zeros(1, dtype=torch.int64), cuts, torch.full((1,), T, dtype=torch.int64)))
    return [x, offsets]


def get_init_inputs():
    return [E, K, N]
