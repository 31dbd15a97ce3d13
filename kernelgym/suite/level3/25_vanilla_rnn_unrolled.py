"""Elman RNN unrolled over time (h = tanh(W_ih x_t + W_hh h + b)) with a linear readout at every step."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "2 * B * T * (IN * H + H * H + H * OUT)",
    "bytes": "4 * (B * T * IN + B * T * OUT + IN * H + H * H + H * OUT + 2 * H + OUT)",
    "small": {"B": 2, "T": 8, "IN": 16, "H": 32, "OUT": 8},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 64
T = 192
IN = 256
H = 1024
OUT = 128


class Model(nn.Module):
    """x [B, T, IN] -> y [B, T, OUT]; the hidden state starts at zero."""

    def __init__(self, in_dim: int, hidden: int, out_dim: int):
        super().__init__()
        self.hidden = hidden
        self.ih = nn.Linear(in_dim, hidden)
        self.hh = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, out_dim)
        nn.init.normal_(self.ih.weight, std=in_dim ** -0.5)
        nn.init.normal_(self.hh.weight, std=0.9 * hidden ** -0.5)
        nn.init.normal_(self.out.weight, std=hidden ** -0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, _ = x.shape
        h = x.new_zeros(b, self.hidden)
        outs = []
        for i in range(t):
            h = torch.tanh(self.ih(x[:, i]) + self.hh(h))
            outs.append(self.out(h))
        return torch.stack(outs, dim=1)


def get_inputs():
    return [torch.randn(B, T, IN)]


def get_init_inputs():
    return [IN, H, OUT]
