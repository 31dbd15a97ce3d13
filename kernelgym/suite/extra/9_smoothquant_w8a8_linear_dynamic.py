"""SmoothQuant W8A8 linear: smooth fp16 activations per channel, quantize them per token to int8, int8 GEMM with exact accumulation, dequantize with token x channel scales, add bias, fp16 output.

Numeric contract:
- xs = float32(x) * smooth (float32 multiply), a_scale = amax_row(|xs|) * fp32(1/127),
  a_q = clamp(round_half_even(xs / a_scale), -127, 127) (IEEE division; see X/7_dynamic_per_token_int8_quant).
- acc = a_q @ w_q^T is an exact integer (int32 accumulation on GPU; float64, exact here, in the reference).
- y = fp16(float32(acc) * a_scale[m] * w_scale[n] + bias[n]).
A kernel whose division is not correctly rounded may flip a rare a_q by 1 at a rounding tie; that moves y by
about a_scale * w_scale * 127 ~ 1e-3 relative of one term, well inside the fp16 tolerance (1e-2).
"""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Quantization",
    "level": 2,
    "dtype": "float16",
    "precision": "int8",  # the GEMM, nearly all the FLOPs: int8 products, int32 accumulation
    "flops": "2 * M * N * K + 6 * M * K + 3 * M * N",
    "bytes": "2 * M * K + N * K + 4 * K + 4 * N + 2 * N + 2 * M * N",
    "small": {"M": 24, "N": 40, "K": 64},
}

M = 2048
N = 4096
K = 4096


class Model(nn.Module):
    """Dynamic-activation, static-weight int8 linear layer with SmoothQuant smoothing factors."""

    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        k, n = in_features, out_features
        self.register_buffer("w_q", torch.randint(-127, 128, (n, k), dtype=torch.int8))
        self.register_buffer("w_scale", (torch.rand(n) + 0.5) / (73.0 * k ** 0.5))
        self.register_buffer("smooth", torch.rand(k) + 0.5)
        self.register_buffer("bias", torch.randn(n) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xs = x.to(torch.float32) * self.smooth.to(torch.float32)
        a_scale = xs.abs().amax(dim=-1, keepdim=True) * (1.0 / 127.0)
        a_q = torch.round(xs / a_scale).clamp(-127, 127)
        acc = a_q.to(torch.float64) @ self.w_q.to(torch.float64).t()      # exact
        y = acc.to(torch.float32) * a_scale * self.w_scale.to(torch.float32).view(1, -1)
        return (y + self.bias.to(torch.float32).view(1, -1)).to(x.dtype)


def get_inputs():
    return [torch.randn(M, K, dtype=torch.float16)]


def get_init_inputs():
    return [K, N]
