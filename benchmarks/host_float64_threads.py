"""What the runner's intra-op threads do to the float64 reference on the host (the path a wrong row of a task too big
for the GPU's memory budget takes, e.g. L1/15 on an H100): an fp32 tensor upcast to float64 and a ReLU, as
``ReferenceSide._exact_on`` does for L1/15, at each thread count in its own process.

    python benchmarks/host_float64_threads.py [--threads 1,2] [--rows 4096] [--cols 100000] [--repeats 3]

A Ray actor that asks for no CPU runs with one thread unless it sets more (``ray_pool.runner_threads``).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time


def one(threads: int, rows: int, cols: int, repeats: int) -> float:
    """The best of ``repeats`` upcasts and ReLUs of a ``rows`` x ``cols`` fp32 tensor on ``threads`` threads (s)."""
    import torch

    torch.set_num_threads(threads)
    x = torch.randn(rows, cols, generator=torch.Generator().manual_seed(0))
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        y = torch.relu(x.to(torch.float64))
        times.append(time.perf_counter() - started)
        del y
    return min(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", default="1,2", help="thread counts, comma-separated (default 1,2)")
    ap.add_argument("--rows", type=int, default=4096)
    ap.add_argument("--cols", type=int, default=100000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--one", type=int, default=None, help=argparse.SUPPRESS)  # a child's thread count
    args = ap.parse_args(argv)
    if args.one is not None:
        print(f"{one(args.one, args.rows, args.cols, args.repeats):.3f}")
        return 0
    gib = args.rows * args.cols * 8 / 2**30
    print(f"{args.rows}x{args.cols} fp32 upcast to float64 ({gib:.2f} GiB) and ReLU, best of {args.repeats}")
    for threads in (int(t) for t in args.threads.split(",")):
        done = subprocess.run([sys.executable, __file__, "--one", str(threads), "--rows", str(args.rows),
                               "--cols", str(args.cols), "--repeats", str(args.repeats)],
                              capture_output=True, text=True, check=True)
        print(f"threads {threads:3d}: {float(done.stdout):.3f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
