"""One Adagrad step with learning-rate decay and weight decay (torch.optim.Adagrad semantics); returns (new_param, new_state_sum)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Optimizer",
    "level": 1,
    "dtype": "float32",
    "flops": "8 * R * C",
    "bytes": "5 * 4 * R * C",
    "small": {"R": 64, "C": 65},
}

R = 61440
C = 2050


class Model(nn.Module):
    """g += wd p; sum += g^2; p -= lr / (1 + (t-1) lr_decay) * g / (sqrt(sum) + eps)."""

    def __init__(self, lr: float, lr_decay: float, weight_decay: float, eps: float, step: int):
        super().__init__()
        self.lr, self.lr_decay, self.weight_decay, self.eps, self.step = lr, lr_decay, weight_decay, eps, step

    def forward(self, param, grad, state_sum):
        g = grad + self.weight_decay * param
        s = state_sum + g * g
        clr = self.lr / (1 + (self.step - 1) * self.lr_decay)
        return param - clr * (g / (s.sqrt() + self.eps)), s


def get_inputs():
    return [torch.randn(R, C), torch.randn(R, C), torch.rand(R, C) * 4.0]


def get_init_inputs():
    return [0.1, 0.01, 1e-3, 1e-10, 5]
