"""One SGD step with weight decay and Nesterov momentum (torch.optim.SGD semantics); returns (new_param, new_momentum_buffer)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Optimizer",
    "level": 1,
    "dtype": "float32",
    "flops": "8 * R * C",
    "bytes": "5 * 4 * R * C",
    "small": {"R": 30, "C": 70},
}

R = 36000
C = 4000


class Model(nn.Module):
    """g = grad + wd * p; buf = mu * buf + g; p = p - lr * (g + mu * buf). Inputs are not modified."""

    def __init__(self, lr: float, momentum: float, weight_decay: float):
        super().__init__()
        self.lr, self.momentum, self.weight_decay = lr, momentum, weight_decay

    def forward(self, param: torch.Tensor, grad: torch.Tensor, momentum_buf: torch.Tensor):
        g = grad + self.weight_decay * param
        buf = self.momentum * momentum_buf + g
        update = g + self.momentum * buf
        return param - self.lr * update, buf


def get_inputs():
    return [torch.randn(R, C), torch.randn(R, C), torch.randn(R, C) * 0.5]


def get_init_inputs():
    return [0.05, 0.9, 1e-4]
