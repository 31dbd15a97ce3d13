"""PointNet classifier: shared per-point MLP (1x1 conv1d + BN + ReLU), global max-pool over points, FC-BN-ReLU head."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Reduce",
    "dtype": "float32",
    "flops": "2 * B * NPTS * (3 * W1 + W1 * W2 + W2 * W3) + 2 * B * (W3 * (W3 // 2) + (W3 // 2) * (W3 // 4)"
             " + (W3 // 4) * NUM_CLASSES)",
    "bytes": "4 * (B * 3 * NPTS + B * NUM_CLASSES + 3 * W1 + W1 * W2 + W2 * W3 + W3 * (W3 // 2)"
             " + (W3 // 2) * (W3 // 4) + (W3 // 4) * NUM_CLASSES)",
    "small": {"B": 2, "NPTS": 32, "W1": 8, "W2": 16, "W3": 32},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 48
NPTS = 4096
W1 = 64
W2 = 128
W3 = 1024
NUM_CLASSES = 40


class Model(nn.Module):
    """points [B, 3, NPTS] -> logits [B, NUM_CLASSES] (inference-mode BatchNorm)."""

    def __init__(self, w1: int, w2: int, w3: int, num_classes: int):
        super().__init__()
        self.point_mlp = nn.Sequential(
            nn.Conv1d(3, w1, 1, bias=False), nn.BatchNorm1d(w1), nn.ReLU(),
            nn.Conv1d(w1, w2, 1, bias=False), nn.BatchNorm1d(w2), nn.ReLU(),
            nn.Conv1d(w2, w3, 1, bias=False), nn.BatchNorm1d(w3), nn.ReLU(),
        )
        self.head = nn.Sequential(
            nn.Linear(w3, w3 // 2, bias=False), nn.BatchNorm1d(w3 // 2), nn.ReLU(),
            nn.Linear(w3 // 2, w3 // 4, bias=False), nn.BatchNorm1d(w3 // 4), nn.ReLU(),
            nn.Linear(w3 // 4, num_classes),
        )
        for m in self.modules():
            if isinstance(m, (nn.Conv1d, nn.Linear)):
                nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm1d):
                nn.init.uniform_(m.weight, 0.5, 1.5)
                nn.init.uniform_(m.bias, -0.2, 0.2)
                nn.init.uniform_(m.running_mean, -0.2, 0.2)
                nn.init.uniform_(m.running_var, 0.5, 1.5)
        nn.init.normal_(self.head[-1].weight, std=0.5 * (w3 // 4) ** -0.5)

    def forward(self, points: torch.Tensor) -> torch.Tensor:
        feat = self.point_mlp(points).amax(dim=2)
        return self.head(feat)


def get_inputs():
    return [torch.randn(B, 3, NPTS)]


def get_init_inputs():
    return [W1, W2, W3, NUM_CLASSES]
