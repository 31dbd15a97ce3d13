"""ConvLSTM unrolled over T frames: gates from a 3x3 conv of [x_t, h], LSTM state update, returns every hidden map."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * B * T * IMG * IMG * 4 * HID * (C_IN + HID) * 9 + 10 * B * T * IMG * IMG * HID",
    "bytes": "4 * (B * T * C_IN * IMG * IMG + B * T * HID * IMG * IMG + 36 * HID * (C_IN + HID) + 4 * HID)",
    "small": {"B": 1, "T": 3, "C_IN": 2, "HID": 4, "IMG": 8},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 16
T = 10
C_IN = 16
HID = 64
IMG = 64


class Model(nn.Module):
    """x [B, T, C_IN, IMG, IMG] -> hidden states [B, T, HID, IMG, IMG] (zero initial state)."""

    def __init__(self, c_in: int, hid: int):
        super().__init__()
        self.hid = hid
        self.gates = nn.Conv2d(c_in + hid, 4 * hid, 3, padding=1)
        nn.init.normal_(self.gates.weight, std=3.0 * (9 * c_in) ** -0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, _, h, w = x.shape
        hid = x.new_zeros(b, self.hid, h, w)
        cell = x.new_zeros(b, self.hid, h, w)
        outs = []
        for i in range(t):
            i_g, f_g, g_g, o_g = self.gates(torch.cat([x[:, i], hid], dim=1)).chunk(4, dim=1)
            cell = torch.sigmoid(f_g) * cell + torch.sigmoid(i_g) * torch.tanh(g_g)
            hid = torch.sigmoid(o_g) * torch.tanh(cell)
            outs.append(hid)
        return torch.stack(outs, dim=1)


def get_inputs():
    return [torch.randn(B, T, C_IN, IMG, IMG)]


def get_init_inputs():
    return [C_IN, HID]
