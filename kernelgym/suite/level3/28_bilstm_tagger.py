"""BiLSTM sequence tagger: token embedding, one bidirectional LSTM layer, per-token linear tag scores."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "2 * 2 * B * T * 4 * H * (E + H) + 2 * B * T * 2 * H * TAGS",
    "bytes": "4 * B * T * 2 + 4 * (B * T * E + B * T * TAGS + 2 * 4 * H * (E + H + 2) + 2 * H * TAGS + TAGS)",
    "small": {"B": 2, "T": 8, "VOCAB": 50, "E": 16, "H": 16, "TAGS": 5},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 64
T = 256
VOCAB = 10000
E = 256
H = 512
#: the forget gate's bias per unit, uniform over this range (the input gate's is its negative): most units keep
#: their cell for tens to hundreds of steps. With the biases near 0 the LSTM forgot its input within about 40
#: steps, so a kernel that restarted the recurrence from a zero state 64 steps before each chunk of 32 outputs (the
#: sequence in parallel chunks) was within 2e-4 of the reference at T = 256 (a red-team finding, round 36)
FORGET_BIAS = (-1.0, 6.0)
TAGS = 32


class Model(nn.Module):
    """tokens [B, T] (int64) -> tag scores [B, T, TAGS]."""

    def __init__(self, vocab: int, emb: int, hidden: int, tags: int):
        super().__init__()
        self.embed = nn.Embedding(vocab, emb)
        self.lstm = nn.LSTM(emb, hidden, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(2 * hidden, tags)
        for name, p in self.lstm.named_parameters():
            if name.startswith("weight"):
                nn.init.normal_(p, std=2.0 * p.shape[1] ** -0.5)
            else:
                nn.init.uniform_(p, -0.1, 0.1)
        with torch.no_grad():  # long memory (see FORGET_BIAS)
            for name, p in self.lstm.named_parameters():
                if name.startswith("bias_ih"):
                    forget = torch.empty(hidden).uniform_(*FORGET_BIAS)
                    p[hidden:2 * hidden] = forget  # gates i, f, g, o: the forget gate
                    p[:hidden] = -forget  # and the input gate as much below (chrono initialisation)
        nn.init.normal_(self.fc.weight, std=2.0 * (2 * hidden) ** -0.5)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        y, _ = self.lstm(self.embed(tokens))
        return self.fc(y)


def get_inputs():
    return [torch.randint(0, VOCAB, (B, T))]


def get_init_inputs():
    return [VOCAB, E, H, TAGS]
