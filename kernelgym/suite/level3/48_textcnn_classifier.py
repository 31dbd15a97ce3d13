"""TextCNN classifier: token embedding, parallel conv1d with kernel widths 3/4/5, ReLU, max-over-time, linear head."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * B * FILTERS * E * (3 * (L - 2) + 4 * (L - 3) + 5 * (L - 4)) + 2 * B * 3 * FILTERS * CLASSES",
    "bytes": "8 * B * L + 4 * (B * L * E + 12 * FILTERS * E + 3 * FILTERS + 3 * FILTERS * CLASSES + CLASSES"
             " + B * CLASSES)",
    "small": {"B": 2, "L": 16, "VOCAB": 50, "E": 12, "FILTERS": 8, "CLASSES": 4},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 256
L = 512
VOCAB = 20000
E = 300
FILTERS = 256
CLASSES = 20


class Model(nn.Module):
    """tokens [B, L] (int64) -> logits [B, CLASSES]."""

    def __init__(self, vocab: int, emb: int, filters: int, classes: int):
        super().__init__()
        self.embed = nn.Embedding(vocab, emb)
        self.convs = nn.ModuleList(nn.Conv1d(emb, filters, k) for k in (3, 4, 5))
        self.fc = nn.Linear(3 * filters, classes)
        for conv in self.convs:
            nn.init.normal_(conv.weight, std=(emb * conv.kernel_size[0]) ** -0.5)
        nn.init.normal_(self.fc.weight, std=(3 * filters) ** -0.5)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens).transpose(1, 2)                   # [B, E, L]
        feats = [torch.relu(conv(x)).amax(dim=2) for conv in self.convs]
        return self.fc(torch.cat(feats, dim=1))


def get_inputs():
    return [torch.randint(0, VOCAB, (B, L))]


def get_init_inputs():
    return [VOCAB, E, FILTERS, CLASSES]
