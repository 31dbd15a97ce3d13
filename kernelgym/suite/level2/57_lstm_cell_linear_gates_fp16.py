"""fp16 LSTM cell: gates = W_x x + W_h h (i, f, g, o); c' = f * c + i * g; returns h' = o * tanh(c')."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float16",
    "flops": "8 * B * HID * (IN + HID) + 24 * B * HID",
    "bytes": "2 * (B * IN + 3 * B * HID + 4 * HID * (IN + HID) + 8 * HID)",
    "small": {"B": 20, "IN": 48, "HID": 32},
}

B = 8192
IN = 2048
HID = 2048


class Model(nn.Module):
    """One LSTM step with separate input and hidden Linear projections in half precision."""

    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.wx = nn.Linear(input_size, 4 * hidden_size, dtype=torch.float16)
        self.wh = nn.Linear(hidden_size, 4 * hidden_size, dtype=torch.float16)

    def forward(self, x: torch.Tensor, h: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        i, f, g, o = (self.wx(x) + self.wh(h)).chunk(4, dim=1)
        c_new = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        return torch.sigmoid(o) * torch.tanh(c_new)


def get_inputs():
    x = torch.randn(B, IN, dtype=torch.float16)
    h = torch.randn(B, HID, dtype=torch.float16)
    c = torch.randn(B, HID, dtype=torch.float16)
    return [x, h, c]


def get_init_inputs():
    return [IN, HID]
