"""Gradient clipping by global L2 norm fused with one Adam step: g *= min(1, max_norm / (||g|| + 1e-6)), then Adam; returns (param, exp_avg, exp_avg_sq)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Optimizer",
    "level": 2,
    "dtype": "float32",
    "flops": "17 * N",
    "bytes": "7 * 4 * N",
    "small": {"N": 5000},
    # atol well below the outputs' size (exp_avg ~1e-2): at the default 1e-4 a clip coefficient off by 1% (the
    # global norm read from 1 element in 64 or 1024) was within tolerance (red team, round 40); honest fp32 kernels
    # are within 3e-7 of the float64 result at the default N
    "atol": 1e-6, "rtol": 1e-4,
}

N = 25_165_831


class Model(nn.Module):
    """clip_grad_norm_(max_norm) followed by torch.optim.Adam's update at step t (global norm over the whole tensor)."""

    def __init__(self, lr: float, beta1: float, beta2: float, eps: float, step: int, max_norm: float):
        super().__init__()
        self.lr, self.beta1, self.beta2, self.eps, self.step, self.max_norm = lr, beta1, beta2, eps, step, max_norm

    def forward(self, param, grad, exp_avg, exp_avg_sq):
        total_norm = torch.linalg.vector_norm(grad, 2)
        coef = torch.clamp(self.max_norm / (total_norm + 1e-6), max=1.0)
        g = grad * coef
        b1, b2 = self.beta1, self.beta2
        m = b1 * exp_avg + (1 - b1) * g
        v = b2 * exp_avg_sq + (1 - b2) * g * g
        denom = v.sqrt() / ((1 - b2 ** self.step) ** 0.5) + self.eps
        return param - (self.lr / (1 - b1 ** self.step)) * (m / denom), m, v


# Magnitudes chosen so that every output, and every term of it, shows above the fp32 tolerance (1e-4): with the
# usual tiny second moments (~1e-8) the third output sat below atol and an all-zero one passed (a red-team finding,
# now a lint rule per output). ||grad|| ~ 0.2 sqrt(N) is twice max_norm at any N, so clipping halves g (~0.1);
# beta2 = 0.95 makes (1 - beta2) g^2 about 5% of v (~1e-2); the step moves param by ~1e-3.
def get_inputs():
    param = torch.randn(N)
    grad = torch.randn(N) * 0.2
    exp_avg = torch.randn(N) * 1e-2
    exp_avg_sq = torch.rand(N) * 1e-2 + 5e-3
    return [param, grad, exp_avg, exp_avg_sq]


def get_init_inputs():
    return [1e-2, 0.9, 0.95, 1e-8, 20, 0.1 * N ** 0.5]
