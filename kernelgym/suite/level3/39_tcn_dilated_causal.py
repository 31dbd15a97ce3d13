"""Temporal convolutional network: LEVELS residual blocks of two dilated causal conv1d + ReLU layers (dilation 2^i)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * B * L * K * HID * (C_IN + HID + 2 * (LEVELS - 1) * HID) + 2 * B * L * C_IN * HID",
    "bytes": "4 * (B * C_IN * L + B * HID * L + K * HID * (C_IN + HID + 2 * (LEVELS - 1) * HID) + C_IN * HID"
             " + (2 * LEVELS + 1) * HID)",
    "small": {"B": 2, "C_IN": 4, "HID": 8, "L": 32, "LEVELS": 2},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 32
C_IN = 64
HID = 256
L = 4096
LEVELS = 4
K = 3


class TemporalBlock(nn.Module):
    def __init__(self, cin: int, cout: int, k: int, dilation: int):
        super().__init__()
        self.pad = (k - 1) * dilation
        self.conv1 = nn.Conv1d(cin, cout, k, dilation=dilation)
        self.conv2 = nn.Conv1d(cout, cout, k, dilation=dilation)
        self.down = nn.Conv1d(cin, cout, 1) if cin != cout else None
        nn.init.kaiming_normal_(self.conv1.weight, nonlinearity="relu")
        nn.init.normal_(self.conv2.weight, std=(cout * k) ** -0.5)

    def forward(self, x):
        y = torch.relu(self.conv1(F.pad(x, (self.pad, 0))))
        y = torch.relu(self.conv2(F.pad(y, (self.pad, 0))))
        res = x if self.down is None else self.down(x)
        return torch.relu(y + res)


class Model(nn.Module):
    """x [B, C_IN, L] -> [B, HID, L]; output at time t depends only on inputs at times <= t."""

    def __init__(self, c_in: int, hid: int, levels: int, k: int):
        super().__init__()
        self.blocks = nn.Sequential(*[TemporalBlock(c_in if i == 0 else hid, hid, k, 2 ** i) for i in range(levels)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.blocks(x)


def get_inputs():
    return [torch.randn(B, C_IN, L)]


def get_init_inputs():
    return [C_IN, HID, LEVELS, K]
