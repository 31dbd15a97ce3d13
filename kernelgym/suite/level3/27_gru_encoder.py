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
    return [torch.randn(B, T, IN)]


def get_init_inputs():
    return [IN, H]
