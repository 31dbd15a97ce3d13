"""One RMSprop step with momentum (torch.optim.RMSprop semantics, not centered); returns (new_param, new_square_avg, new_momentum_buffer)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Optimizer",
    "level": 1,
    "dtype": "float32",
    "flops": "10 * R * C",
    "bytes": "7 * 4 * R * C",
    "small": {"R": 17, "C": 300},
}

R = 10240
C = 9000


class Model(nn.Module):
    """v = a v + (1-a) g^2; buf = mu buf + g / (sqrt(v) + eps); p -= lr * buf."""

    def __init__(self, lr: float, alpha: float, eps: float, momentum: float):
        super().__init__()
        self.lr, self.alpha, self.eps, self.momentum = lr, alpha, eps, momentum

    def forward(self, param, grad, square_avg, momentum_buf):
        v = self.alpha * square_avg + (1 - self.alpha) * grad * grad
        avg = v.sqrt() + self.eps
        buf = self.momentum * momentum_buf + grad / avg
        return param - self.lr * buf, v, buf


def get_inputs():
    return [torch.randn(R, C), torch.randn(R, C), torch.rand(R, C) + 0.05, torch.randn(R, C)]


def get_init_inputs():
    return [1e-2, 0.99, 1e-8, 0.9]
