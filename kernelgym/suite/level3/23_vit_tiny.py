"""Tiny ViT: conv patch embedding, class token + learned position embedding, DEPTH pre-LN encoder blocks, LN, linear head."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "2 * B * (IMG // PATCH) ** 2 * D * 3 * PATCH * PATCH"
             " + DEPTH * (2 * B * ((IMG // PATCH) ** 2 + 1) * 12 * D * D + 4 * B * ((IMG // PATCH) ** 2 + 1) ** 2 * D)"
             " + 2 * B * D * NUM_CLASSES",
    "bytes": "4 * (B * 3 * IMG * IMG + B * NUM_CLASSES + 3 * PATCH * PATCH * D + ((IMG // PATCH) ** 2 + 2) * D"
             " + DEPTH * (12 * D * D + 13 * D) + D * NUM_CLASSES + 2 * D)",
    "small": {"B": 2, "IMG": 16, "PATCH": 4, "D": 32, "HEADS": 4, "DEPTH": 1},
    "atol": 2e-2, "rtol": 2e-2,
}

B = 48
IMG = 224
PATCH = 16
D = 384
HEADS = 6
DEPTH = 2
NUM_CLASSES = 1000


class Block(nn.Module):
    def __init__(self, d: int, heads: int):
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.norm2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)
        nn.init.normal_(self.qkv.weight, std=d ** -0.5)
        nn.init.normal_(self.proj.weight, std=d ** -0.5)
        with torch.no_grad():
            self.qkv.weight[: 2 * d] *= 2.0

    def forward(self, x):
        b, n, d = x.shape
        dh = d // self.heads
        q, k, v = self.qkv(self.norm1(x)).view(b, n, 3, self.heads, dh).permute(2, 0, 3, 1, 4)
        att = torch.softmax((q @ k.transpose(-2, -1)) * dh ** -0.5, dim=-1)
        x = x + self.proj((att @ v).transpose(1, 2).reshape(b, n, d))
        return x + self.fc2(nn.functional.gelu(self.fc1(self.norm2(x))))


class Model(nn.Module):
    """Images [B, 3, IMG, IMG] -> logits [B, NUM_CLASSES] read from the class token."""

    def __init__(self, img: int, patch: int, d: int, heads: int, depth: int, num_classes: int):
        super().__init__()
        n = (img // patch) ** 2
        self.patch = nn.Conv2d(3, d, patch, stride=patch)
        self.cls = nn.Parameter(torch.randn(1, 1, d) * 0.5)
        self.pos = nn.Parameter(torch.randn(1, n + 1, d) * 0.5)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(depth))
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, num_classes)
        nn.init.normal_(self.patch.weight, std=(3 * patch * patch) ** -0.5)
        nn.init.normal_(self.head.weight, std=d ** -0.5)
        # the norms' weights and biases off their defaults (1, 0): a kernel must read them
        for norm in [n for block in self.blocks for n in (block.norm1, block.norm2)] + [self.norm]:
            nn.init.uniform_(norm.weight, 0.5, 1.5)
            nn.init.uniform_(norm.bias, -0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.patch(x).flatten(2).transpose(1, 2)          # [B, N, D]
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.norm(x[:, 0]))


def get_inputs():
    return [torch.randn(B, 3, IMG, IMG)]


def get_init_inputs():
    return [IMG, PATCH, D, HEADS, DEPTH, NUM_CLASSES]
