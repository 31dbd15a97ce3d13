"""Highway network: LAYERS layers of y = T * relu(W_h x + b_h) + (1 - T) * x with transform gate T = sigmoid(W_t x + b_t)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "LAYERS * (2 * 2 * B * D * D + 6 * B * D)",
    "bytes": "4 * (2 * B * D + LAYERS * (2 * D * D + 2 * D))",
    "small": {"B": 4, "D": 32, "LAYERS": 2},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 2048
D = 2048
LAYERS = 6


class Model(nn.Module):
    """x [B, D] -> [B, D]; gate biases start around -1 so layers initially lean towards carrying x."""

    def __init__(self, d: int, layers: int):
        super().__init__()
        self.h = nn.ModuleList(nn.Linear(d, d) for _ in range(layers))
        self.t = nn.ModuleList(nn.Linear(d, d) for _ in range(layers))
        for lin_h, lin_t in zip(self.h, self.t):
            nn.init.kaiming_normal_(lin_h.weight, nonlinearity="relu")
            nn.init.normal_(lin_t.weight, std=d ** -0.5)
            nn.init.uniform_(lin_t.bias, -1.5, -0.5)  # around -1, not one constant

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for lin_h, lin_t in zip(self.h, self.t):
            gate = torch.sigmoid(lin_t(x))
            x = gate * torch.relu(lin_h(x)) + (1.0 - gate) * x
        return x


def get_inputs():
    return [torch.randn(B, D)]


def get_init_inputs():
    return [D, LAYERS]
