"""False alarms of the statistical comparison (kernelgym/judge/statistical.py) on honest draws. CPU.

    python benchmarks/statistical_false_alarms.py [--seed 7] [--reps 60] [--elements 131072]

For six random laws like the Random tasks' (Bernoulli of per-element p, inverted dropout, additive Gaussian noise,
uniform dither, stochastic rounding, noise scaled by softplus of a second input), each in fp32 and bf16, draws the
reference three times and an honest candidate twice on the same inputs, and compares them as the judge does (the
task's tolerance: 1e-4 in fp32, 2e-2 in bf16; the second candidate draw for the repeat trial's test). Prints the
number of comparisons and every failure; an honest candidate should never fail (the tests' bounds are at 6
standard errors, the distribution test at 1e-9).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def laws(n: int, gen):
    import torch
    import torch.nn.functional as F

    x = torch.randn(n, generator=gen) + 1
    p = torch.rand(n, generator=gen) * 0.6
    u = torch.rand(n, generator=gen) * 3
    logits, scale = torch.randn(n, generator=gen) * 0.5, torch.randn(n, generator=gen)
    return {
        "bernoulli": lambda: torch.bernoulli(p, generator=gen),
        "dropout": lambda: x * (torch.rand(n, generator=gen) > 0.3) / 0.7,
        "gaussian_noise": lambda: x + 0.3 * torch.randn(n, generator=gen),
        "uniform_dither": lambda: x + 0.5 * (torch.rand(n, generator=gen) - 0.5),
        "stochastic_rounding": lambda: torch.floor(u) + (torch.rand(n, generator=gen) < u - torch.floor(u)).float(),
        "scaled_noise": lambda: logits + torch.randn(n, generator=gen) * F.softplus(scale),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--reps", type=int, default=60)
    ap.add_argument("--elements", type=int, default=128 * 1024)
    args = ap.parse_args()

    import torch

    from kernelgym.judge.statistical import compare_statistics, repeat_gap

    gen = torch.Generator().manual_seed(args.seed)
    compared, failures, started = 0, [], time.time()
    for _ in range(args.reps):
        for name, draw in laws(args.elements, gen).items():
            for dtype, tol in ((torch.float32, 1e-4), (torch.bfloat16, 2e-2)):
                a, b, d, c, c2 = (draw().to(dtype) for _ in range(5))
                ok, reason, _ = compare_statistics(a, c, tol, tol, [b, d])
                if ok:  # the session's repeat trial: the candidate's second draw on the same inputs
                    reason = repeat_gap(c, c2, b, d, "cpu")
                    ok = reason is None
                compared += 1
                if not ok:
                    failures.append((name, str(dtype), reason))
                    print("FALSE ALARM", name, dtype, reason, flush=True)
    print(f"{compared} honest comparisons, {len(failures)} false alarms, {time.time() - started:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
