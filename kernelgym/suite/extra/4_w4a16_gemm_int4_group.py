"""W4A16 GEMM: fp16 activations times packed 4-bit weights (two per uint8 byte) with group-wise fp16 scales and integer zeros.

Numeric contract:
- qweight (K // 2, N) uint8 packs the unsigned 4-bit weights along K: q[2i, n] = qweight[i, n] & 0xF (low nibble)
  and q[2i + 1, n] = qweight[i, n] >> 4 (high nibble).
- Groups of G consecutive rows of K share scales[k // G, n] (fp16) and zeros[k // G, n] (uint8 in [0, 15]).
- Dequantized weight w[k, n] = fp16((q[k, n] - zeros[k // G, n]) * scales[k // G, n]). (q - z) is an integer in
  [-15, 15], so its product with an fp16 scale is exact in fp32 and rounds once to fp16: computing it in fp16 or
  fp32 gives the same bits.
- y = x @ w with fp32 accumulation, rounded to fp16. Different summation orders differ by ~1e-3 relative at most;
  outputs are O(1), so atol = rtol = 1e-2 (the fp16 default) is met by any fp32-accumulating kernel.
"""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Quantization",
    "level": 1,
    "dtype": "float16",
    "flops": "2 * M * N * K",
    "bytes": "2 * M * K + K * N // 2 + 3 * (K // G) * N + 2 * M * N",
    "small": {"M": 16, "K": 64, "N": 48, "G": 16},
}

M = 256
K = 4096
N = 11008
G = 128


class Model(nn.Module):
    """y = x @ dequant(qweight, scales, zeros)."""

    def __init__(self, in_features: int, out_features: int, group_size: int):
        super().__init__()
        k, n, g = in_features, out_features, group_size
        self.group_size = g
        self.register_buffer("qweight", torch.randint(0, 256, (k // 2, n), dtype=torch.uint8))
        # (q - z) has std ~6.5; this makes w ~ 1/sqrt(k) so that y = x @ w is O(1)
        self.register_buffer("scales", ((torch.rand(k // g, n) + 0.5) / (6.5 * k ** 0.5)).to(torch.float16))
        self.register_buffer("zeros", torch.randint(0, 16, (k // g, n), dtype=torch.uint8))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        low = (self.qweight & 0xF).to(torch.int32)
        high = (self.qweight >> 4).to(torch.int32)
        half, n = self.qweight.shape
        q = torch.stack((low, high), dim=1).reshape(2 * half, n)     # row 2i = low nibble, 2i+1 = high nibble
        z = self.zeros.to(torch.int32).repeat_interleave(self.group_size, dim=0)
        s = self.scales.to(torch.float32).repeat_interleave(self.group_size, dim=0)
        w = ((q - z).to(torch.float32) * s).to(x.dtype)
        return x @ w


def get_inputs():
    return [torch.randn(M, K, dtype=torch.float16)]


def get_init_inputs():
    return [K, N, G]
