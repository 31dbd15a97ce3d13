"""Collect a small offline dataset with the replay policy, then load it back from Parquet.

    python examples/collect_dataset.py --out /tmp/kernelgym-episodes.jsonl [--pattern 'L1/1*'] [--samples 2]
                                       [--turns 1] [--device cpu] [--resume]

The same as ``kernelgym collect --policy replay ...``, from Python. Records: docs/DATASETS.md.
"""

from __future__ import annotations

import argparse
import json

import pyarrow.parquet as pq

from kernelgym.data import ReplayPolicy, collect
from kernelgym.tasks import load_tasks


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="JSONL file (Parquet is written next to it)")
    ap.add_argument("--tasks", default=None, help="task folder (default: the bundled suite)")
    ap.add_argument("--pattern", default="L1/15_relu", help="fnmatch pattern over task ids")
    ap.add_argument("--replay-dir", default=None, help="folder of candidate files (default: bundled solutions)")
    ap.add_argument("--samples", type=int, default=1)
    ap.add_argument("--turns", type=int, default=1)
    ap.add_argument("--device", default=None)
    ap.add_argument("--resume", action="store_true")
    args = ap.parse_args()

    tasks = load_tasks(args.tasks).select(pattern=args.pattern)
    stats = collect(ReplayPolicy(args.replay_dir), tasks, args.out, samples=args.samples, max_turns=args.turns,
                    device=args.device, resume=args.resume)
    print(stats.summary())
    table = pq.read_table(stats.parquet)
    print(f"{stats.parquet}: {table.num_rows} rows, columns: {', '.join(table.column_names)}")
    for row in table.select(["episode_id", "num_turns", "correct", "statuses", "rewards"]).to_pylist():
        print(json.dumps(row))
    return 0 if stats.failed == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
