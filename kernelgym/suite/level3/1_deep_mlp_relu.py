"""Deep MLP: LAYERS hidden Linear+ReLU layers of width HIDDEN followed by a linear output layer."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "2 * B * (D_IN * HIDDEN + (LAYERS - 1) * HIDDEN * HIDDEN + HIDDEN * D_OUT)",
    "bytes": "4 * (B * D_IN + B * D_OUT + D_IN * HIDDEN + (LAYERS - 1) * HIDDEN * HIDDEN + HIDDEN * D_OUT"
             " + LAYERS * HIDDEN + D_OUT)",
    "small": {"B": 4, "D_IN": 32, "HIDDEN": 64, "D_OUT": 16, "LAYERS": 3},
    "atol": 2e-2, "rtol": 2e-2,
}

B = 2048
D_IN = 1024
HIDDEN = 2048
D_OUT = 512
LAYERS = 8


class Model(nn.Module):
    """x -> [Linear -> ReLU] * LAYERS -> Linear (He-initialised so activations stay O(1))."""

    def __init__(self, d_in: int, hidden: int, d_out: int, layers: int):
        super().__init__()
        dims = [d_in] + [hidden] * layers
        self.hidden = nn.ModuleList(nn.Linear(dims[i], dims[i + 1]) for i in range(layers))
        self.out = nn.Linear(hidden, d_out)
        for layer in self.hidden:
            nn.init.kaiming_normal_(layer.weight, nonlinearity="relu")
        nn.init.kaiming_normal_(self.out.weight, nonlinearity="linear")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.hidden:
            x = torch.relu(layer(x))
        return self.out(x)


def get_inputs():
    return [torch.randn(B, D_IN)]


def get_init_inputs():
    return [D_IN, HIDDEN, D_OUT, LAYERS]
