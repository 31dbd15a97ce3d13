"""NeRF MLP: sin/cos positional encodings of points and view directions, 8-layer ReLU trunk with a skip, density and RGB heads."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "2 * N * (3 * (1 + 2 * L_POS) * WIDTH * 2 + (DEPTH - 1) * WIDTH * WIDTH + WIDTH * (WIDTH + 1)"
             " + (WIDTH + 3 * (1 + 2 * L_DIR)) * (WIDTH // 2) + (WIDTH // 2) * 3)",
    "bytes": "4 * (6 * N + 4 * N + 3 * (1 + 2 * L_POS) * WIDTH * 2 + (DEPTH - 1) * WIDTH * WIDTH"
             " + WIDTH * (WIDTH + 1) + (WIDTH + 3 * (1 + 2 * L_DIR)) * (WIDTH // 2) + (WIDTH // 2) * 3)",
    "small": {"N": 16, "WIDTH": 32, "DEPTH": 4, "L_POS": 4, "L_DIR": 2},
    "atol": 2e-2, "rtol": 2e-2,
}

N = 65536
WIDTH = 256
DEPTH = 8
L_POS = 10
L_DIR = 4


def encode(x: torch.Tensor, n_freq: int) -> torch.Tensor:
    freqs = 2.0 ** torch.arange(n_freq, device=x.device, dtype=x.dtype)          # [F]
    ang = x[..., None, :] * freqs[:, None]                                        # [N, F, 3]
    return torch.cat([x, ang.sin().flatten(-2), ang.cos().flatten(-2)], dim=-1)


class Model(nn.Module):
    """forward(points [N, 3] in [-1, 1], dirs [N, 3] unit vectors) -> [N, 4] = (rgb in (0, 1), density >= 0)."""

    def __init__(self, width: int, depth: int, l_pos: int, l_dir: int):
        super().__init__()
        self.l_pos, self.l_dir = l_pos, l_dir
        pos_dim = 3 * (1 + 2 * l_pos)
        dir_dim = 3 * (1 + 2 * l_dir)
        self.skip = depth // 2
        layers = []
        for i in range(depth):
            cin = pos_dim if i == 0 else width + (pos_dim if i == self.skip else 0)
            layers.append(nn.Linear(cin, width))
        self.trunk = nn.ModuleList(layers)
        self.sigma_feat = nn.Linear(width, width + 1)
        self.rgb1 = nn.Linear(width + dir_dim, width // 2)
        self.rgb2 = nn.Linear(width // 2, 3)
        for lin in list(self.trunk) + [self.rgb1]:
            nn.init.kaiming_normal_(lin.weight, nonlinearity="relu")
        nn.init.normal_(self.sigma_feat.weight, std=width ** -0.5)
        nn.init.normal_(self.rgb2.weight, std=2.0 * (width // 2) ** -0.5)

    def forward(self, points: torch.Tensor, dirs: torch.Tensor) -> torch.Tensor:
        p = encode(points, self.l_pos)
        d = encode(dirs, self.l_dir)
        h = p
        for i, lin in enumerate(self.trunk):
            if i == self.skip:
                h = torch.cat([h, p], dim=-1)
            h = torch.relu(lin(h))
        sf = self.sigma_feat(h)
        sigma = torch.relu(sf[:, :1])
        rgb = torch.sigmoid(self.rgb2(torch.relu(self.rgb1(torch.cat([sf[:, 1:], d], dim=-1)))))
        return torch.cat([rgb, sigma], dim=-1)


def get_inputs():
    pts = torch.rand(N, 3) * 2.0 - 1.0
    dirs = torch.randn(N, 3)
    return [pts, dirs / dirs.norm(dim=-1, keepdim=True)]


def get_init_inputs():
    return [WIDTH, DEPTH, L_POS, L_DIR]
