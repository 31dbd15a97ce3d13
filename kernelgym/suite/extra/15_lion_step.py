"""One Lion optimizer step (sign of interpolated momentum, decoupled weight decay); returns (new_param, new_exp_avg).

Numeric contract: the update direction is sign(c) with c = beta1 * exp_avg + (1 - beta1) * grad. To make the
sign well defined for every implementation (with or without FMA, lerp or mul-add), grad and exp_avg are
multiples of 2^-12 with |value| < 8 and beta1 = 0.875, beta2 = 63/64: every product and sum in c and in the new
exp_avg is then exact in float32, so c (and exp_avg) are bit-exact and sign(0) = 0 is reproducible. The parameter
update p * (1 - lr * wd) - lr * sign(c) is ordinary float32 arithmetic (default 1e-4 tolerance).
"""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Optimizer",
    "level": 1,
    "dtype": "float32",
    "flops": "9 * R * C",
    "bytes": "5 * 4 * R * C",
    "small": {"R": 50, "C": 77},
}

R = 40960
C = 3072


class Model(nn.Module):
    """c = b1 m + (1-b1) g; p = p (1 - lr wd) - lr sign(c); m = b2 m + (1-b2) g."""

    def __init__(self, lr: float, beta1: float, beta2: float, weight_decay: float):
        super().__init__()
        self.lr, self.beta1, self.beta2, self.weight_decay = lr, beta1, beta2, weight_decay

    def forward(self, param, grad, exp_avg):
        c = self.beta1 * exp_avg + (1 - self.beta1) * grad
        p = param * (1 - self.lr * self.weight_decay) - self.lr * torch.sign(c)
        m = self.beta2 * exp_avg + (1 - self.beta2) * grad
        return p, m


def get_inputs():
    param = torch.randn(R, C)
    grad = torch.round(torch.randn(R, C) * 4096.0).clamp(-32767, 32767) / 4096.0
    exp_avg = torch.round(torch.randn(R, C) * 512.0).clamp(-32767, 32767) / 4096.0
    return [param, grad, exp_avg]


def get_init_inputs():
    return [1e-3, 0.875, 63.0 / 64.0, 0.1]
