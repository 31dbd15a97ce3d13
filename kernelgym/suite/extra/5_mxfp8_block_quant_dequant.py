"""MXFP8 fake quantization: each block of 32 values shares a power-of-two scale, values are cast to float8_e4m3fn and back.

Numeric contract (OCP Microscaling style, every step exact or a single round-to-nearest-even):
- For each block of 32 consecutive elements along the last dimension: amax = max |x|. Its binary exponent
  e = floor(log2(amax)) (torch.frexp gives amax = m * 2**(e + 1) with m in [0.5, 1)); the shared scale is
  s = 2**(e - 8), 8 being the largest exponent of e4m3. An all-zero block gets s = 2**-9 (it quantizes to 0).
- x / s is exact (division by a power of two), it is clamped to [-448, 448] (saturation) and cast to
  torch.float8_e4m3fn with round-to-nearest-even (subnormals included). This is the same as Triton's
  .to(tl.float8e4nv) / PTX cvt.rn.satfinite on the clamped value.
- out = float32(q) * s, exact.
So the output is bit-exact for a faithful implementation; the fp32 default tolerance is kept.
"""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Quantization",
    "level": 1,
    "dtype": "float32",
    "flops": "6 * R * C",
    "bytes": "8 * R * C",
    "small": {"R": 24, "C": 160},
}

R = 8192
C = 8192
BLOCK = 32


class Model(nn.Module):
    """Quantize-dequantize with per-32-element power-of-two scales and e4m3 elements."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rows, cols = x.shape
        xb = x.reshape(rows, cols // BLOCK, BLOCK)
        amax = xb.abs().amax(dim=-1, keepdim=True)
        _, e = torch.frexp(amax)                                # amax = m * 2**e, m in [0.5, 1)
        biased = (e - 1 - 8 + 127).to(torch.int32)              # IEEE exponent field of s = 2**(floor(log2 amax) - 8)
        s = (biased << 23).view(torch.float32)                  # exact power of two built from its bits
        q = (xb / s).clamp(-448.0, 448.0).to(torch.float8_e4m3fn)
        return (q.to(torch.float32) * s).reshape(rows, cols)


def get_inputs():
    # blocks with very different magnitudes, as in real activations
    mag = torch.exp(2.0 * torch.randn(R, C // BLOCK, 1))
    x = torch.randn(R, C // BLOCK, BLOCK) * mag
    return [x.reshape(R, C)]


def get_init_inputs():
    return []
