"""Feature pyramid network neck: 1x1 laterals, nearest-upsample top-down sums, 3x3 output convs, extra stride-2 level; flattened."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * B * CH * (IMG * IMG * 2 * CH + (IMG // 2) ** 2 * 4 * CH + (IMG // 4) ** 2 * 8 * CH)"
             " + 2 * B * CH * CH * 9 * (IMG * IMG + (IMG // 2) ** 2 + (IMG // 4) ** 2)",
    "bytes": "4 * (B * CH * (2 * IMG * IMG + 4 * (IMG // 2) ** 2 + 8 * (IMG // 4) ** 2)"
             " + B * CH * (IMG * IMG + (IMG // 2) ** 2 + (IMG // 4) ** 2 + (IMG // 8) ** 2)"
             " + CH * CH * (2 + 4 + 8 + 27) + 6 * CH)",
    "small": {"B": 1, "CH": 8, "IMG": 8},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 24
CH = 256
IMG = 64


class Model(nn.Module):
    """forward(c3 [B, 2CH, IMG, IMG], c4 [B, 4CH, IMG/2, IMG/2], c5 [B, 8CH, IMG/4, IMG/4]) ->
    concat of flattened P3, P4, P5, P6 (each CH channels) along dim 1."""

    def __init__(self, ch: int):
        super().__init__()
        self.lat3 = nn.Conv2d(2 * ch, ch, 1)
        self.lat4 = nn.Conv2d(4 * ch, ch, 1)
        self.lat5 = nn.Conv2d(8 * ch, ch, 1)
        self.out3 = nn.Conv2d(ch, ch, 3, padding=1)
        self.out4 = nn.Conv2d(ch, ch, 3, padding=1)
        self.out5 = nn.Conv2d(ch, ch, 3, padding=1)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                fan_in = m.weight.shape[1] * m.weight.shape[2] * m.weight.shape[3]
                nn.init.normal_(m.weight, std=fan_in ** -0.5)

    def forward(self, c3: torch.Tensor, c4: torch.Tensor, c5: torch.Tensor) -> torch.Tensor:
        p5 = self.lat5(c5)
        p4 = self.lat4(c4) + F.interpolate(p5, scale_factor=2.0, mode="nearest")
        p3 = self.lat3(c3) + F.interpolate(p4, scale_factor=2.0, mode="nearest")
        o3, o4, o5 = self.out3(p3), self.out4(p4), self.out5(p5)
        o6 = F.max_pool2d(o5, 1, stride=2)
        return torch.cat([o.flatten(1) for o in (o3, o4, o5, o6)], dim=1)


def get_inputs():
    return [torch.randn(B, 2 * CH, IMG, IMG), torch.randn(B, 4 * CH, IMG // 2, IMG // 2),
            torch.randn(B, 8 * CH, IMG // 4, IMG // 4)]


def get_init_inputs():
    return [CH]
