"""Two-layer GRU encoder (nn.GRU, batch_first) returning the top layer's hidden state at every step."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "2 * B * T * 3 * H * (IN + H) + 2 * B * T * 3 * H * 2 * H",
    "bytes": "4 * (B * T * IN + B * T * H + 3 * H * (IN + 3 * H + 4))",
    "small": {"B": 2, "T": 8, "IN": 16, "H": 32},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 32
T = 256
IN = 256
H = 768
#: scale of each sequence's context: a per-feature offset drawn once per sequence and added at every step. With
#: white-noise inputs alone the GRU forgot its input within a few dozen steps: a kernel that restarted the
#: recurrence from a zero state 32 steps before each chunk of 32 outputs (the sequence in parallel chunks) was
#: within 1e-4 of the reference at T = 256 on every kind of trial (a red-team finding, round 36). With the
#: context some units' gates saturate open, and a restart even 128 steps back is off by 0.1 or more
CONTEXT = 4.0


class Model(nn.Module):
    """x [B, T, IN] -> GRU output [B, T, H] (zero initial state)."""

    def __init__(self, in_dim: int, hidden: int):
        super().__init__()
        self.gru = nn.GRU(in_dim, hidden, num_layers=2, batch_first=True)
        for name, p in self.gru.named_parameters():
            if name.startswith("weight"):
                nn.init.normal_(p, std=p.shape[1] ** -0.5)
            else:
                nn.init.uniform_(p, -0.1, 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y, _ = self.gru(x)
        return y


def get_inputs():
    # every sequence also carries a context of its own at every step (CONTEXT): it saturates some units' gates,
    # which then keep their state through the whole sequence
    return [torch.randn(B, T, IN) + CONTEXT * torch.randn(B, 1, IN)]


def get_init_inputs():
    return [IN, H]
