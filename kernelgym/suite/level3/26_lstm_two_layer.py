"""Two-layer LSTM (nn.LSTM, batch_first) over a sequence followed by a per-step linear projection."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "2 * B * T * 4 * H * (IN + H) + 2 * B * T * 4 * H * 2 * H + 2 * B * T * H * OUT",
    "bytes": "4 * (B * T * IN + B * T * OUT + 4 * H * (IN + 3 * H + 4) + H * OUT + OUT)",
    "small": {"B": 2, "T": 8, "IN": 16, "H": 32, "OUT": 8},
    # an honest TF32 kernel drifts over 256 steps of long memory: the bundled solution was off by up to 0.020 in 3 of
    # 4 evaluations on an H100 (a few elements; 5 of 5 passed at 3e-2, but the linter's rule mean |output| >= 10 x
    # atol then failed: 0.164 at the small shapes). Open: docs/BENCHMARKS.md, thirty-seventh session
    "atol": 1e-2, "rtol": 1e-2,
}

B = 64
T = 256
IN = 128
H = 512
#: scale of each sequence's context: a per-feature offset drawn once per sequence and added at every step. With
#: white-noise inputs alone the LSTM forgot its input within a few dozen steps: a kernel that restarted the
#: recurrence from a zero state 64 steps before each chunk of 32 outputs (the sequence in parallel chunks) was
#: within 2e-4 of the reference at T = 256 on every kind of trial (a red-team finding, round 36). With the
#: context some units' gates saturate open: at these shapes a restart 64 steps back is off by 19-23 times a
#: tolerance of 1e-2, 128 steps back by 8-17 times. The context (4) and the weights (std 2/sqrt(fan)) it came with first
#: made the state so sensitive that an honest kernel computing in TF32 (``tl.dot`` on a GPU) was off by 3.7-5.6 times
#: the tolerance, its bundled solution `incorrect` on an H100; at 2 and 1/sqrt(fan), 0.22-0.52 times (simulated,
#: tests/test_redteam_round36_verdicts.py)
CONTEXT = 2.0
OUT = 64


class Model(nn.Module):
    """x [B, T, IN] -> Linear(LSTM_2layers(x)) [B, T, OUT] with zero initial states."""

    def __init__(self, in_dim: int, hidden: int, out_dim: int):
        super().__init__()
        self.lstm = nn.LSTM(in_dim, hidden, num_layers=2, batch_first=True)
        self.fc = nn.Linear(hidden, out_dim)
        for name, p in self.lstm.named_parameters():
            if name.startswith("weight"):
                nn.init.normal_(p, std=p.shape[1] ** -0.5)
            else:
                nn.init.uniform_(p, -0.1, 0.1)
        nn.init.normal_(self.fc.weight, std=2.0 * hidden ** -0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y, _ = self.lstm(x)
        return self.fc(y)


def get_inputs():
    # every sequence also carries a context of its own at every step (CONTEXT): it saturates some units' gates,
    # which then keep their state through the whole sequence
    return [torch.randn(B, T, IN) + CONTEXT * torch.randn(B, 1, IN)]


def get_init_inputs():
    return [IN, H, OUT]
