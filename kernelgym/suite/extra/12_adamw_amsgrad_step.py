"""One AdamW step with decoupled weight decay and AMSGrad (torch.optim.AdamW semantics); returns (param, exp_avg, exp_avg_sq, max_exp_avg_sq)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Optimizer",
    "level": 1,
    "dtype": "float32",
    "flops": "16 * N",
    "bytes": "9 * 4 * N",
    "small": {"N": 3001},
}

N = 80_000_003


class Model(nn.Module):
    """p *= 1 - lr*wd; m, v as Adam; vmax = max(vmax, v); p -= lr/(1-b1^t) * m / (sqrt(vmax)/sqrt(1-b2^t) + eps)."""

    def __init__(self, lr: float, beta1: float, beta2: float, eps: float, weight_decay: float, step: int):
        super().__init__()
        self.lr, self.beta1, self.beta2, self.eps = lr, beta1, beta2, eps
        self.weight_decay, self.step = weight_decay, step

    def forward(self, param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq):
        b1, b2 = self.beta1, self.beta2
        p = param * (1 - self.lr * self.weight_decay)
        m = b1 * exp_avg + (1 - b1) * grad
        v = b2 * exp_avg_sq + (1 - b2) * grad * grad
        vmax = torch.maximum(max_exp_avg_sq, v)
        bias_correction1 = 1 - b1 ** self.step
        bias_correction2 = 1 - b2 ** self.step
        denom = vmax.sqrt() / (bias_correction2 ** 0.5) + self.eps
        p = p - (self.lr / bias_correction1) * (m / denom)
        return p, m, v, vmax


def get_inputs():
    param = torch.randn(N)
    grad = torch.randn(N)
    exp_avg = torch.randn(N) * 0.1
    exp_avg_sq = torch.rand(N) * 0.01 + 1e-4
    max_exp_avg_sq = exp_avg_sq + torch.rand(N) * 0.005 * (torch.rand(N) < 0.5)
    return [param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq]


def get_init_inputs():
    return [3e-3, 0.9, 0.95, 1e-8, 0.1, 100]
