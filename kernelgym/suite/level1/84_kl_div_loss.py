"""KL divergence KL(target || model) between two softmax distributions given as logits (batchmean)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Loss",
    "dtype": "float32",
    "flops": "10 * B * V",
    "bytes": "4 * (2 * B * V + 1)",
    "small": {"B": 8, "V": 257},
}

B = 8192
V = 32768


class Model(nn.Module):
    """F.kl_div(log_softmax(logits), log_softmax(target_logits), reduction='batchmean', log_target=True)."""

    def __init__(self):
        super().__init__()

    def forward(self, logits: torch.Tensor, target_logits: torch.Tensor) -> torch.Tensor:
        log_p = F.log_softmax(logits, dim=-1)
        log_q = F.log_softmax(target_logits, dim=-1)
        return F.kl_div(log_p, log_q, reduction="batchmean", log_target=True)


def get_inputs():
    logits = torch.randn(B, V)
    target_logits = torch.randn(B, V) * (torch.rand(B, 1) * 2)
    return [logits, target_logits]


def get_init_inputs():
    return []
