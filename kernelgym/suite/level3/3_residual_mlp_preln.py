"""Stack of pre-LayerNorm residual MLP blocks (x + W2 GELU(W1 LN(x))) with a final LayerNorm."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "BLOCKS * 2 * 2 * B * D * EXPANSION * D",
    "bytes": "4 * (2 * B * D + BLOCKS * (2 * EXPANSION * D * D + EXPANSION * D + 3 * D) + 2 * D)",
    "small": {"B": 8, "D": 32, "BLOCKS": 2},
    "atol": 2e-2, "rtol": 2e-2,
}

B = 2048
D = 1024
EXPANSION = 4
BLOCKS = 6


class ResidualBlock(nn.Module):
    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)
        self.act = nn.GELU()

    def forward(self, x):
        return x + self.fc2(self.act(self.fc1(self.norm(x))))


class Model(nn.Module):
    """BLOCKS pre-LN residual MLP blocks of width D (hidden EXPANSION*D), then LayerNorm."""

    def __init__(self, dim: int, expansion: int, blocks: int):
        super().__init__()
        self.blocks = nn.ModuleList(ResidualBlock(dim, expansion * dim) for _ in range(blocks))
        self.norm = nn.LayerNorm(dim)
        # the norms' weights and biases off their defaults (1, 0): a kernel must read them
        for norm in [block.norm for block in self.blocks] + [self.norm]:
            nn.init.uniform_(norm.weight, 0.5, 1.5)
            nn.init.uniform_(norm.bias, -0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = block(x)
        return self.norm(x)


def get_inputs():
    return [torch.randn(B, D)]


def get_init_inputs():
    return [D, EXPANSION, BLOCKS]
