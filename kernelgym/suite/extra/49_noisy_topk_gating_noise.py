"""Noisy gating logits for mixture-of-experts routing: h = logits + N(0, 1) * softplus(noise_logits) (statistical check on mean and std)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Random",
    "level": 2,
    "dtype": "float32",
    "check": "statistical",
    "flops": "6 * T * E",
    "bytes": "3 * 4 * T * E",
    "small": {"T": 8192, "E": 64},
}

T = 4_194_304
E = 64


class Model(nn.Module):
    """Shazeer et al. noisy top-k gating, noise part: the noise std is softplus(noise_logits) per element."""

    def __init__(self):
        super().__init__()

    def forward(self, logits: torch.Tensor, noise_logits: torch.Tensor) -> torch.Tensor:
        return logits + torch.randn_like(logits) * F.softplus(noise_logits)


def get_inputs():
    return [torch.randn(T, E) * 0.5 + 0.2, torch.randn(T, E) * 0.5]


def get_init_inputs():
    return []
