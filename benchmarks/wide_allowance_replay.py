"""Replay of the wide trial's allowance on the CPU: an honest TF32 kernel of L2/20's model, rows with two wide outliers.

L2/20 (``tanh(relu(x @ W^T + b) * gamma + beta)``, K = 256, N = 512) failed one element of 134M in a recheck on
wide inputs on the H100 (b21456f): exact 1, got 0.44. Where a row of ``x`` holds two wide outliers (1e5 to 1e7), the
two terms ``x_k * W_jk`` can cancel to a few units in some column ``j``: TF32's rounding of the operands (10
fraction bits) then moves that column's sum by more than its value, and the ReLU flips. The allowance is the
largest change that moving the data by a relative ``rel`` makes in the row, from a *sample* of opposite pairs of
moves; a sample whose moves all leave the cancelling sum nearly still misses the flip.

This script draws ``--rows`` such rows per seed (every row with two wide outliers, log-uniform magnitudes, as
``kernelgym.judge.inputs`` draws them), runs the model with TF32-truncated operands (the candidate) and in float64
(the exact result), and judges the candidate with the judge's own code (:class:`LargestChange`, :func:`compare_tensor`
and the rule :func:`kernelgym.judge.session.compare_wide`), the moves made as
:meth:`kernelgym.judge.reference.ReferenceSide.perturbed_outputs` makes them. It prints, per seed, whether the first
sample of pairs passed, and where it did not, the failing element's terms and whether the judge's rule passed it.

    python benchmarks/wide_allowance_replay.py --seeds 10-40 --rows 65536
"""

from __future__ import annotations

import argparse
import math
import time

import torch

from kernelgym.judge.correctness import LargestChange, compare_tensor
from kernelgym.judge.inputs import WIDE_MAGNITUDE, WIDE_MAGNITUDE_MAX
from kernelgym.judge import session
from kernelgym.judge.session import WIDE_SPREAD_FACTOR, compare_wide

K, N = 256, 512
REL, ATOL, RTOL = 1e-2, 0.1, 1e-2  # L2/20's rtol; the wide trial's atol is ten times the task's


def model(x, w, b, gamma, beta):
    return torch.tanh(torch.relu(x @ w.T + b) * gamma + beta)


def tf32(t):
    """float32 with the 13 low fraction bits cleared: what the tensor cores keep of an operand."""
    return (t.view(torch.int32) & -8192).view(torch.float32)


def draw(seed: int, rows: int):
    torch.manual_seed(seed)
    linear = torch.nn.Linear(K, N)
    gamma, beta = torch.rand(N) * 2 + 0.5, torch.randn(N) * 0.5
    x = torch.randn(rows, K)
    places = torch.rand(rows, K).argsort(dim=1)[:, :2]  # two distinct columns per row
    span = math.log(WIDE_MAGNITUDE_MAX / WIDE_MAGNITUDE)
    x.scatter_(1, places, (WIDE_MAGNITUDE * torch.exp(span * torch.rand(rows, 2))).float())
    return x, linear.weight.detach(), linear.bias.detach(), gamma, beta


def allowances(data64: list, exact, pairs: int, seed: int) -> tuple:
    """The judge's per-row allowance from ``pairs`` opposite pairs of moves of every tensor by ``1 +- REL * u``."""
    largest, gen, index = LargestChange((exact,)), torch.Generator().manual_seed(seed), 0
    for _ in range(pairs):
        start = gen.get_state()
        for sign in (1.0, -1.0):
            gen.set_state(start)
            moved = [t * (1 + sign * REL * (torch.rand(t.shape, generator=gen, dtype=t.dtype) * 2 - 1)) for t in data64]
            largest.add(index, (model(*moved),))
            index += 1
    return largest.allowances(WIDE_SPREAD_FACTOR, REL)


def replay(seed: int, rows: int) -> dict:
    data = draw(seed, rows)
    x, w = data[0], data[1]
    candidate = model(tf32(x), tf32(w), *data[2:])
    reference = model(*data)
    data64 = [t.double() for t in data]
    exact = model(*data64)

    def compare(allowed):
        return compare_tensor(reference, candidate, ATOL, RTOL, "allclose", 0, exact, None, allowed[0])

    first = compare(allowances(data64, exact, 2, seed))
    out = {"seed": seed, "rows": rows, "first_ok": first.ok}
    if not first.ok:
        check, pairs, _ = compare_wide(compare, lambda p: allowances(data64, exact, p, seed))
        row, col = first.worst_index
        big = (x[row].abs() > 1e4).nonzero().flatten().tolist()
        out.update(beyond=first.beyond, judged_ok=check.ok, judged_pairs=pairs, element=(row, col),
                   terms=[round(float(x[row, k] * w[col, k]), 2) for k in big],
                   exact_sum=round(float(data64[0][row] @ data64[1][col] + data64[2][col]), 3),
                   got=round(float(candidate[row, col]), 4), exact=round(float(exact[row, col]), 4))
    return out


def main() -> None:
    # the rule's time cap on the first sample is for a GPU's moves (milliseconds) that fell back to the host; the
    # replay's moves all run on the CPU, so the cap would judge the CPU's speed, not the rule
    session.WIDE_AGAIN_MAX_FIRST_S = math.inf
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0-9", help="a range a-b or a comma-separated list")
    parser.add_argument("--rows", type=int, default=65536, help="rows per seed, each with two wide outliers")
    args = parser.parse_args()
    if "-" in args.seeds:
        low, high = (int(v) for v in args.seeds.split("-"))
        seeds = list(range(low, high + 1))
    else:
        seeds = [int(v) for v in args.seeds.split(",")]
    missed = judged = 0
    for seed in seeds:
        started = time.monotonic()
        out = replay(seed, args.rows)
        missed += not out["first_ok"]
        judged += not out["first_ok"] and out["judged_ok"]
        print(f"{out} ({time.monotonic() - started:.1f} s)", flush=True)
    print(f"{len(seeds)} seeds x {args.rows} rows: the first sample (2 pairs) failed {missed}; "
          f"the judge's rule passed {judged} of those")


if __name__ == "__main__":
    main()
