"""Wide two-hidden-layer MLP with GELU activations and a 1000-way output layer."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "2 * B * (D_IN * HIDDEN + HIDDEN * HIDDEN + HIDDEN * D_OUT)",
    "bytes": "4 * (B * D_IN + B * D_OUT + D_IN * HIDDEN + HIDDEN * HIDDEN + HIDDEN * D_OUT + 2 * HIDDEN + D_OUT)",
    "small": {"B": 4, "D_IN": 32, "HIDDEN": 64, "D_OUT": 10},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 512
D_IN = 1024
HIDDEN = 8192
D_OUT = 1000


class Model(nn.Module):
    """Linear(D_IN, HIDDEN) -> GELU -> Linear(HIDDEN, HIDDEN) -> GELU -> Linear(HIDDEN, D_OUT)."""

    def __init__(self, d_in: int, hidden: int, d_out: int):
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc3 = nn.Linear(hidden, d_out)
        self.act = nn.GELU()
        for fc in (self.fc1, self.fc2, self.fc3):
            nn.init.normal_(fc.weight, std=(2.0 / fc.in_features) ** 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.act(self.fc1(x))
        x = self.act(self.fc2(x))
        return self.fc3(x)


def get_inputs():
    return [torch.randn(B, D_IN)]


def get_init_inputs():
    return [D_IN, HIDDEN, D_OUT]
