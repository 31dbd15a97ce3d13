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
GAIN = 1.15
INPUT_GAIN = 0.3


class Model(nn.Module):
    """x [B, T, IN] -> y [B, T, OUT]; the hidden state starts at zero."""

    def __init__(self, in_dim: int, hidden: int, out_dim: int):
        super().__init__()
        self.hidden = hidden
        self.ih = nn.Linear(in_dim, hidden)
        self.hh = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, out_dim)
        # A recurrence that keeps its state (docs/SECURITY.md, "Red team, round 37 (verdicts)"): with W_hh normal
        # at 0.9 / sqrt(H) and unit input weights the state was forgotten within about 16 steps, and a kernel that
        # restarted the recurrence from a zero state 16 steps before each chunk of 16 outputs (a sixth of the
        # sequential steps) was off by 3e-4 against a tolerance of 1e-2. An orthogonal W_hh at gain GAIN and inputs
        # weighted by INPUT_GAIN keep it longer (a restart 32 steps back is off by several times the tolerance),
        # while TF32 rounding stays about a third of the tolerance (CPU simulation, full shapes).
        nn.init.normal_(self.ih.weight, std=INPUT_GAIN * in_dim ** -0.5)
        nn.init.orthogonal_(self.hh.weight, gain=GAIN)
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
