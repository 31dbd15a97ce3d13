"""DCN-v2 ranking model: LAYERS full-rank cross layers x0 * (W x + b) + x in parallel with a deep ReLU MLP, joint linear head."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "2 * B * (LAYERS * D * D + D * DEEP + DEEP * DEEP + (D + DEEP) * OUT) + 3 * B * LAYERS * D",
    "bytes": "4 * (B * D + B * OUT + LAYERS * (D * D + D) + D * DEEP + DEEP * DEEP + 2 * DEEP"
             " + (D + DEEP) * OUT + OUT)",
    "small": {"B": 8, "D": 32, "DEEP": 32, "LAYERS": 2},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 8192
D = 1024
DEEP = 1024
LAYERS = 3
OUT = 4


class Model(nn.Module):
    """x [B, D] dense features -> [B, OUT] scores."""

    def __init__(self, d: int, deep: int, layers: int, out: int):
        super().__init__()
        self.cross = nn.ModuleList(nn.Linear(d, d) for _ in range(layers))
        self.deep = nn.Sequential(nn.Linear(d, deep), nn.ReLU(), nn.Linear(deep, deep), nn.ReLU())
        self.head = nn.Linear(d + deep, out)
        for lin in self.cross:
            nn.init.normal_(lin.weight, std=0.5 * d ** -0.5)
        nn.init.kaiming_normal_(self.deep[0].weight, nonlinearity="relu")
        nn.init.kaiming_normal_(self.deep[2].weight, nonlinearity="relu")
        nn.init.normal_(self.head.weight, std=(d + deep) ** -0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x0 = x
        c = x
        for lin in self.cross:
            c = x0 * lin(c) + c
        return self.head(torch.cat([c, self.deep(x)], dim=1))


def get_inputs():
    return [torch.randn(B, D)]


def get_init_inputs():
    return [D, DEEP, LAYERS, OUT]
