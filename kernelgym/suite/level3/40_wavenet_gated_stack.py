"""WaveNet stack: causal input conv, dilated gated (tanh * sigmoid) residual layers with skip sums, two 1x1 output convs."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * B * L * (2 * C_IN * RES + LAYERS * (2 * RES * 2 * RES + RES * RES + RES * SKIP) + SKIP * SKIP"
             " + SKIP * OUT) + 6 * B * L * LAYERS * RES",
    "bytes": "4 * (B * C_IN * L + B * OUT * L + 2 * C_IN * RES + LAYERS * (4 * RES * RES + RES * RES + RES * SKIP)"
             " + SKIP * SKIP + SKIP * OUT)",
    "small": {"B": 1, "L": 32, "RES": 8, "SKIP": 8, "LAYERS": 3, "OUT": 16},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 16
C_IN = 1
L = 8192
RES = 64
SKIP = 128
LAYERS = 10
OUT = 256


class GatedLayer(nn.Module):
    def __init__(self, res: int, skip: int, dilation: int):
        super().__init__()
        self.dilation = dilation
        self.dil = nn.Conv1d(res, 2 * res, 2, dilation=dilation)
        self.res = nn.Conv1d(res, res, 1)
        self.skip = nn.Conv1d(res, skip, 1)

    def forward(self, x):
        f, g = self.dil(F.pad(x, (self.dilation, 0))).chunk(2, dim=1)
        z = torch.tanh(f) * torch.sigmoid(g)
        return x + self.res(z), self.skip(z)


class Model(nn.Module):
    """x [B, C_IN, L] -> logits [B, OUT, L]; dilations 1, 2, 4, ..., 2^(LAYERS-1)."""

    def __init__(self, c_in: int, res: int, skip: int, layers: int, out: int):
        super().__init__()
        self.inp = nn.Conv1d(c_in, res, 2)
        self.layers = nn.ModuleList(GatedLayer(res, skip, 2 ** i) for i in range(layers))
        self.post1 = nn.Conv1d(skip, skip, 1)
        self.post2 = nn.Conv1d(skip, out, 1)
        for m in self.modules():
            if isinstance(m, nn.Conv1d):
                nn.init.normal_(m.weight, std=(m.weight.shape[1] * m.weight.shape[2]) ** -0.5)
        nn.init.normal_(self.post1.weight, std=(2.0 / skip) ** 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.inp(F.pad(x, (1, 0)))
        skips = 0
        for layer in self.layers:
            h, s = layer(h)
            skips = skips + s
        y = torch.relu(self.post1(torch.relu(skips)))
        return self.post2(y)


def get_inputs():
    return [torch.randn(B, C_IN, L)]


def get_init_inputs():
    return [C_IN, RES, SKIP, LAYERS, OUT]
