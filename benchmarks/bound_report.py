"""Where the runner's wall-clock bound, not the worker's own figure, set a run's runtimes (docs/SECURITY.md).

    python benchmarks/bound_report.py RESULTS [RESULTS ...] [--all] [--json out.json]

``RESULTS``: an evaluation's ``results.jsonl`` (``kernelgym eval --out``) or a ``datasets*.tgz`` of
``benchmarks/gpu_session.sh`` holding ``eval/results.jsonl``. Per timed row: the worker's reported median, the
runtime the judge kept, the factor between them (above 1: the bound or the compared floor raised it), and what the
bound was made of: the fastest block's wall per call, the null overhead subtracted, and the excess (wall less the
overhead less the reported median: host time the candidate's blocks spent that the null blocks did not). Where the
result has them (since f7a4eb8): the synchronized median (with the activity method, the reported median is the
spans'), the spread of the null blocks' overheads, and the worker's CPU wait per call in its fastest block (the
host's load); since the twenty-third session, which blocks had a probe (``runner_block_probed``): the fastest
block's wall per call among those with a probe and among those without (a probe's outlier inputs are drawn on the
host inside its block). Rows the bound rejected (``timing_wall_mismatch``) are listed apart, with the factor the
bound put on the worker's synchronized median. Since 5d8971d, the late null blocks (``late_null_overheads_ms``: how many
rows ran them, their least overhead over the early one's) and which raises were the bound's (a row can also be raised
by the compared calls' floor); since 707421e, the worker's wait for each call's seed in the fastest block
(``seed_wait`` of ``fastest_block_steps_ms``, per call; the part beyond 0.5 ms counts as the call's time). Prints
the raised rows (every row with ``--all``) and a summary: how
many were raised, by how much, and the median excess. An honest run wants few raised rows and no rejected ones: a
raise is a kernel charged for time that was not its own.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import tarfile
from pathlib import Path

#: a runtime more than this factor above the reported median counts as raised (rounding aside)
RAISED = 1.001


def read_rows(path: Path) -> list[dict]:
    """The rows of a ``results.jsonl``, or of the ``eval/results.jsonl`` inside a ``.tgz``."""
    if path.name.endswith((".tgz", ".tar.gz")):
        with tarfile.open(path) as tar:
            member = next((m for m in tar.getmembers() if m.name.endswith("eval/results.jsonl")), None)
            if member is None:
                raise SystemExit(f"{path}: no eval/results.jsonl inside")
            text = io.TextIOWrapper(tar.extractfile(member), encoding="utf-8").read()
    else:
        text = path.read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def probe_split(spread: dict) -> tuple[float | None, float | None]:
    """The fastest block's wall per call among the blocks with a probe and among those without (``None`` where
    there were none of a kind, or the result does not say which blocks had one)."""
    walls, probed = spread.get("runner_block_walls_ms") or [], spread.get("runner_block_probed") or []
    if not walls or len(probed) != len(walls):
        return None, None
    with_probe = [w for w, p in zip(walls, probed) if p]
    without = [w for w, p in zip(walls, probed) if not p]
    return (min(with_probe) if with_probe else None), (min(without) if without else None)


def rejected_figures(row: dict) -> dict | None:
    """A row the bound rejected (``timing_wall_mismatch``, its bound's parts kept since f7a4eb8), or ``None``."""
    res = row.get("result", row)
    spread = res.get("runtime_spread") or {}
    flags = {f.get("name") for f in res.get("flags") or []}
    reported = spread.get("synchronized_median_ms")
    if "timing_wall_mismatch" not in flags or not reported or "runner_fastest_wall_ms" not in spread:
        return None
    probed_ms, plain_ms = probe_split(spread)
    return {"task": res.get("task_id"), "synchronized_ms": reported, "bound_ms": spread.get("runner_bound_ms"),
            "factor": (spread.get("runner_bound_ms") or 0.0) / reported, "wall_ms": spread["runner_fastest_wall_ms"],
            "overhead_ms": spread.get("runner_overhead_ms") or 0.0, "walls_ms": spread.get("runner_block_walls_ms"),
            "probed_fastest_ms": probed_ms, "plain_fastest_ms": plain_ms}


def row_figures(row: dict) -> dict | None:
    """What one timed result says about its bound, or ``None`` for a row that was not timed on a GPU."""
    res = row.get("result", row)
    spread = res.get("runtime_spread") or {}
    reported = spread.get("reported_median_ms")
    if not res.get("timing_meaningful") or not reported or "runner_fastest_wall_ms" not in spread:
        return None
    wall, overhead = spread["runner_fastest_wall_ms"], spread.get("runner_overhead_ms") or 0.0
    out = {"task": res.get("task_id"), "status": res.get("status"), "reported_ms": reported,
           "runtime_ms": res.get("runtime_ms"), "raised": (res.get("runtime_ms") or reported) / reported,
           "bound_ms": spread.get("runner_bound_ms"), "wall_ms": wall, "overhead_ms": overhead,
           "block_calls": spread.get("runner_fastest_block_calls"), "excess_ms": wall - overhead - reported,
           "synchronized_ms": spread.get("synchronized_median_ms"),
           "latency_left_out_ms": spread.get("latency_left_out_ms")}
    nulls = spread.get("null_overheads_ms") or []
    out["null_spread_ms"] = (max(nulls) - min(nulls)) if nulls else None
    walls, waits = spread.get("runner_block_walls_ms") or [], spread.get("worker_block_cpu_wait_ms") or []
    if walls and len(waits) == len(walls):
        fastest = min(range(len(walls)), key=walls.__getitem__)
        out["fastest_cpu_wait_ms"] = waits[fastest]
    else:
        out["fastest_cpu_wait_ms"] = None
    out["probed_fastest_ms"], out["plain_fastest_ms"] = probe_split(spread)
    # a witness (kernelgym.judge.witness): where the overhead came from, the null calls' and the witness's figures
    out["overhead_from"] = spread.get("runner_overhead_from")
    out["null_overhead_ms"] = spread.get("null_overhead_ms")
    out["witness_overhead_ms"] = spread.get("witness_overhead_ms")
    out["witness_failure"] = spread.get("witness_failure")
    # the bound the null calls' overhead gave over all blocks, before the witness's was taken: the runtime it would
    # have kept, over the reported median
    unwitnessed = spread.get("unwitnessed_bound_ms")
    out["raised_without_witness"] = max(reported, unwitnessed) / reported if unwitnessed is not None else None
    out["by_bound"] = (spread.get("runner_bound_ms") or 0.0) > reported * RAISED
    late = spread.get("late_null_overheads_ms") or []
    early = spread.get("null_overhead_ms")
    out["late_over_early"] = max(0.0, min(late)) / early if late and early else None
    out["seed_wait_ms"] = (spread.get("fastest_block_steps_ms") or {}).get("seed_wait")
    return out


def summary(figures: list[dict]) -> dict:
    raised = [f for f in figures if f["raised"] > RAISED]
    witnessed = [f for f in figures if f.get("witness_overhead_ms") is not None]
    ratios = [f["witness_overhead_ms"] / f["null_overhead_ms"] for f in witnessed if f.get("null_overhead_ms")]
    return {"timed": len(figures), "raised": len(raised),
            "raised_by": sorted((round(f["raised"], 2) for f in raised), reverse=True),
            "median_excess_ms": round(statistics.median(f["excess_ms"] for f in figures), 3) if figures else None,
            "witnessed": len(witnessed), "from_witness": sum(f.get("overhead_from") == "witness" for f in figures),
            "witness_failed": sum(bool(f.get("witness_failure")) for f in figures),
            "witness_over_null": sorted(round(r, 2) for r in ratios),
            "raised_without_witness_by": sorted((round(f["raised_without_witness"], 2) for f in witnessed
                                                 if (f.get("raised_without_witness") or 0) > RAISED), reverse=True),
            "raised_by_bound": sum(f["raised"] > RAISED and f.get("by_bound", False) for f in figures),
            "late_rounds": sum(f.get("late_over_early") is not None for f in figures),
            "late_over_early": sorted(round(f["late_over_early"], 2) for f in figures
                                      if f.get("late_over_early") is not None),
            "seed_wait_ms": _spread_of([f["seed_wait_ms"] for f in figures if f.get("seed_wait_ms") is not None])}


def _spread_of(values: list[float]) -> dict | None:
    """The median and the largest of ``values`` (ms), and how many pass the seed's 0.5 ms allowance; ``None`` where
    there are none."""
    if not values:
        return None
    return {"median": round(statistics.median(values), 4), "max": round(max(values), 4),
            "over_allowance": sum(v > 0.5 for v in values), "rows": len(values)}


def _fmt(v, spec=".3f") -> str:
    return "-" if v is None else format(v, spec)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+", type=Path)
    ap.add_argument("--all", action="store_true", help="every timed row, not only the raised ones")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    report = {}
    for path in args.results:
        rows = read_rows(path)
        figures = [f for f in (row_figures(r) for r in rows) if f is not None]
        rejected = [f for f in (rejected_figures(r) for r in rows) if f is not None]
        report[str(path)] = {"summary": {**summary(figures), "rejected": len(rejected)}, "rows": figures,
                             "rejected": rejected}
        print(f"== {path}")
        print(f"{'task':44} {'reported':>9} {'runtime':>9} {'raised':>7} {'wall':>8} {'overhead':>8} {'excess':>8} "
              f"{'sync':>8} {'null±':>7} {'cpu wait':>8} calls")
        for f in sorted(figures, key=lambda f: -f["raised"]):
            if args.all or f["raised"] > RAISED:
                print(f"{str(f['task'])[:44]:44} {f['reported_ms']:9.3f} {_fmt(f['runtime_ms']):>9} "
                      f"{f['raised']:7.2f} {f['wall_ms']:8.2f} {f['overhead_ms']:8.2f} {f['excess_ms']:8.2f} "
                      f"{_fmt(f['synchronized_ms']):>8} {_fmt(f['null_spread_ms'], '.2f'):>7} "
                      f"{_fmt(f['fastest_cpu_wait_ms'], '.2f'):>8} {f['block_calls']}")
        s = report[str(path)]["summary"]
        for f in rejected:
            print(f"REJECTED {str(f['task'])[:35]:35} synchronized {f['synchronized_ms']:.3f} ms, bound "
                  f"{f['bound_ms']:.3f} ({f['factor']:.1f}x), fastest wall {f['wall_ms']:.2f} less overhead "
                  f"{f['overhead_ms']:.2f}; fastest with a probe {_fmt(f['probed_fastest_ms'], '.2f')}, without "
                  f"{_fmt(f['plain_fastest_ms'], '.2f')}; walls {f['walls_ms']}")
        if s["witnessed"] or s["witness_failed"]:
            print(f"witnesses: {s['witnessed']} measured, {s['from_witness']} gave the bound, {s['witness_failed']} "
                  f"failed; witness overhead over the null calls' {s['witness_over_null']}; without them the null "
                  f"calls' bound would have raised {len(s['raised_without_witness_by'])} of these "
                  f"(by {s['raised_without_witness_by']})")
            for f in figures:
                if f.get("witness_failure"):
                    print(f"  witness failed for {f['task']}: {f['witness_failure'][:200]}")
        split = [(f["probed_fastest_ms"], f["plain_fastest_ms"]) for f in figures
                 if f["probed_fastest_ms"] is not None and f["plain_fastest_ms"] is not None]
        print(f"timed {s['timed']}, raised {s['raised']} (by {s['raised_by'][:12]}), "
              f"median excess {s['median_excess_ms']} ms, rejected by the bound {s['rejected']}")
        print(f"raised by the bound {s['raised_by_bound']}; late null rounds {s['late_rounds']} (least late overhead "
              f"over the early one {s['late_over_early'][:12]}); seed wait per call in the fastest block "
              f"{s['seed_wait_ms'] or 'not recorded'}")
        if split:
            print(f"rows with blocks of both kinds {len(split)}: the fastest probed block's wall per call over the "
                  f"fastest plain one's, median {statistics.median(p / q for p, q in split):.2f}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
