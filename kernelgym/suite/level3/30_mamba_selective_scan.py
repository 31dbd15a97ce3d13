"""Mamba-style mixer: in-projection, causal depthwise conv1d, input-dependent (dt, B, C), selective scan loop, SiLU gate, out-projection."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * B * L * (D * 2 * E + E * (R + 2 * N) + R * E + E * D) + 2 * B * L * E * KC"
             " + 8 * B * L * E * N",
    "bytes": "4 * (2 * B * L * D + D * 2 * E + E * KC + E + E * (R + 2 * N) + R * E + E + E * N + E + E * D + D)",
    "small": {"B": 2, "L": 8, "D": 16, "E": 32, "N": 4, "R": 4},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 8
L = 192
D = 256
E = 512
N = 16
R = 16
KC = 4


class Model(nn.Module):
    """x [B, L, D] -> [B, L, D]; RMS-normalised input, state size N per channel, dt rank R."""

    def __init__(self, d: int, e: int, n: int, r: int, kc: int):
        super().__init__()
        self.e, self.n, self.r = e, n, r
        self.norm_weight = nn.Parameter(torch.ones(d))
        self.in_proj = nn.Linear(d, 2 * e, bias=False)
        self.conv = nn.Conv1d(e, e, kc, groups=e, padding=kc - 1)
        self.x_proj = nn.Linear(e, r + 2 * n, bias=False)
        self.dt_proj = nn.Linear(r, e)
        a = torch.arange(1, n + 1, dtype=torch.float32).repeat(e, 1)
        self.A_log = nn.Parameter(torch.log(a))
        self.D_skip = nn.Parameter(torch.ones(e))
        self.out_proj = nn.Linear(e, d, bias=False)
        nn.init.normal_(self.in_proj.weight, std=d ** -0.5)
        nn.init.normal_(self.x_proj.weight, std=3.0 * e ** -0.5)
        nn.init.normal_(self.out_proj.weight, std=2.0 * e ** -0.5)
        with torch.no_grad():   # dt initialised so that softplus(bias) lies in [1e-2, 5e-1]
            dt = torch.exp(torch.rand(e) * (math.log(0.5) - math.log(1e-2)) + math.log(1e-2))
            self.dt_proj.bias.copy_(dt + torch.log(-torch.expm1(-dt)))
        nn.init.uniform_(self.norm_weight, 0.5, 1.5)  # not the default ones: a kernel must read them
        nn.init.uniform_(self.D_skip, 0.5, 1.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, l, _ = x.shape
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * self.norm_weight
        u, z = self.in_proj(x).chunk(2, dim=-1)                         # [B, L, E] each
        u = F.silu(self.conv(u.transpose(1, 2))[..., :l]).transpose(1, 2)
        dt_r, bm, cm = self.x_proj(u).split([self.r, self.n, self.n], dim=-1)
        dt = F.softplus(self.dt_proj(dt_r))                             # [B, L, E]
        a = -torch.exp(self.A_log)                                      # [E, N]
        h = u.new_zeros(b, self.e, self.n)
        ys = []
        for t in range(l):
            da = torch.exp(dt[:, t, :, None] * a)
            h = da * h + (dt[:, t, :, None] * u[:, t, :, None]) * bm[:, t, None, :]
            ys.append((h * cm[:, t, None, :]).sum(-1))
        y = torch.stack(ys, dim=1) + u * self.D_skip
        return self.out_proj(y * F.silu(z))


def get_inputs():
    return [torch.randn(B, L, D)]


def get_init_inputs():
    return [D, E, N, R, KC]
