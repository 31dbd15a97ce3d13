"""One Adam step with bias correction (torch.optim.Adam semantics, step count given); returns (new_param, new_exp_avg, new_exp_avg_sq)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Optimizer",
    "level": 1,
    "dtype": "float32",
    "flops": "14 * R * C",
    "bytes": "7 * 4 * R * C",
    "small": {"R": 48, "C": 100},
}

R = 20480
C = 4096


class Model(nn.Module):
    """m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2; p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)."""

    def __init__(self, lr: float, beta1: float, beta2: float, eps: float, step: int):
        super().__init__()
        self.lr, self.beta1, self.beta2, self.eps, self.step = lr, beta1, beta2, eps, step

    def forward(self, param, grad, exp_avg, exp_avg_sq):
        b1, b2 = self.beta1, self.beta2
        m = b1 * exp_avg + (1 - b1) * grad
        v = b2 * exp_avg_sq + (1 - b2) * grad * grad
        bias_correction1 = 1 - b1 ** self.step
        bias_correction2 = 1 - b2 ** self.step
        step_size = self.lr / bias_correction1
        denom = v.sqrt() / (bias_correction2 ** 0.5) + self.eps
        return param - step_size * (m / denom), m, v


def get_inputs():
    param = torch.randn(R, C)
    grad = torch.randn(R, C)
    exp_avg = torch.randn(R, C) * 0.1
    exp_avg_sq = torch.rand(R, C) * 0.01 + 1e-4
    return [param, grad, exp_avg, exp_avg_sq]


def get_init_inputs():
    return [1e-2, 0.9, 0.999, 1e-8, 10]
