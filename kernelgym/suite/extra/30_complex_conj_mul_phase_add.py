"""Complex elementwise formula on interleaved (re, im) float32 pairs: out = a * conj(b) + c * exp(i * phi)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Math",
    "level": 1,
    "dtype": "float32",
    "flops": "14 * N",
    "bytes": "4 * (2 * N * 4 + N)",
    "small": {"N": 3000},
}

N = 100_663_296


class Model(nn.Module):
    """Inputs and output are (N, 2) real views of complex64 values."""

    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor, c: torch.Tensor, phi: torch.Tensor) -> torch.Tensor:
        za, zb, zc = torch.view_as_complex(a), torch.view_as_complex(b), torch.view_as_complex(c)
        rot = torch.polar(torch.ones_like(phi), phi)
        return torch.view_as_real(za * zb.conj() + zc * rot)


def get_inputs():
    return [torch.randn(N, 2), torch.randn(N, 2), torch.randn(N, 2), torch.rand(N) * 6.2831853 - 3.1415927]


def get_init_inputs():
    return []
