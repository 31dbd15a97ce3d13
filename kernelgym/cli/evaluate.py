"""``kernelgym eval``: score a folder of generations, or evaluate one candidate file for one task."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kernelgym.cli.errors import CliError
from kernelgym.cli.options import add_judge_options, add_task_options, check_jobs, judge_profile, ray_evaluator

USAGE = """kernelgym eval DIR [--out OUTDIR] [options]
       kernelgym eval TASK_ID FILE [--json] [options]"""

DESCRIPTION = """Evaluate generations.

eval DIR: score every candidate file under DIR, named by task id (L1/15_relu.py, or L1/15_relu/<sample>.py for
several samples) or as KernelBench names them (level_1_problem_15_sample_0_kernel.py), against the tasks that
--tasks, --level, --category, --pattern and --task select (default: every task of the set): a task or sample
without a file counts as failed (every task counts as many samples as the one with the most), and a second file
for the same sample of a task is not evaluated. Then write results.jsonl,
report.json, report.md and fast_p.png (fast_p at each --p, geometric-mean speedup, pass@k, per level and per
category) to OUTDIR (default: DIR-eval next to DIR), and list every file that failed with its status and message.
An earlier report in OUTDIR is kept: --resume continues it (a file scored again replaces its line of
results.jsonl; a verdict that was the judge's own failure is evaluated again, and until then eval exits 1),
--force overwrites it. An OUTDIR holding candidate files (DIR itself, or DIR/L1) is refused.

eval TASK_ID FILE: evaluate one file for one task and print the verdict (exit 0 when correct, 1 otherwise)."""


#: What ``eval DIR`` writes to OUTDIR (an earlier one is overwritten only with --force).
REPORT_FILES = ("results.jsonl", "report.json", "report.md", "fast_p.png")


def register(sub) -> None:
    p = sub.add_parser("eval", help="score a folder of generations, or one file for one task", usage=USAGE,
                       description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("target", metavar="DIR|TASK_ID", help="a folder of generations, or a task id")
    p.add_argument("candidate", nargs="?", metavar="FILE", help="with a task id: the candidate file")
    add_task_options(p)
    add_judge_options(p, "evaluations at once (default: CPU count, at most 8)")
    p.add_argument("--out", default=None, help="folder for the reports (DIR form; default DIR-eval)")
    p.add_argument("--p", type=float, nargs="+", default=None, metavar="P",
                   help="fast_p thresholds (default 0 0.5 0.8 1 1.5 2)")
    p.add_argument("--k", type=int, nargs="+", default=None, metavar="K", help="pass@k values (default 1 5 10)")
    p.add_argument("--resume", action="store_true", help="reuse OUTDIR/results.jsonl for unchanged files")
    p.add_argument("--force", "--overwrite", action="store_true",
                   help="overwrite an earlier report in OUTDIR (without it, or --resume, eval refuses)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="TASK_ID FILE form: print the EvalResult as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    judge_profile(args)  # a bad --limit fails before any work
    check_jobs(args)
    check_report_options(args)  # and so do a bad --p or --k (the report is made after every evaluation)
    if args.candidate is not None:
        return run_one(args)
    target = Path(args.target)
    if not target.is_dir():
        hint = " (to evaluate one file: kernelgym eval TASK_ID FILE)" if not target.exists() else ""
        raise CliError(f"cannot read folder {target}{hint}")
    return run_folder(args, target)


def check_report_options(args: argparse.Namespace) -> None:
    """:class:`CliError` for a ``--k`` below 1 or a ``--p`` that is not a finite number: found only when the report
    was made, they ended ``eval DIR`` after every file had been evaluated, with no report written."""
    import math

    bad_k = [k for k in args.k or () if k < 1]
    if bad_k:
        raise CliError(f"--k takes values of at least 1 (pass@k over k samples), got {bad_k[0]}")
    bad_p = [p for p in args.p or () if not math.isfinite(p)]
    if bad_p:
        raise CliError(f"--p takes finite speedup thresholds (e.g. --p 0 1 1.5), got {bad_p[0]}")


def run_one(args: argparse.Namespace) -> int:
    from kernelgym.judge.runner import Judge
    from kernelgym.tasks import load_tasks

    path = Path(args.candidate)
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"cannot read candidate file {path}: {getattr(exc, 'strerror', None) or exc}") from None
    task = load_tasks(args.tasks).get(args.target)
    result = Judge(device=args.device, cache_dir=args.cache_dir).evaluate(task, text, backend=args.backend,
                                                                          profile=judge_profile(args),
                                                                          torch_policy=args.torch_policy)
    if args.json:
        print(result.to_json())
    else:
        from kernelgym.envs.prompt import render_feedback

        print(render_feedback(result.to_dict()))
    return 0 if result.correct else 1


def run_folder(args: argparse.Namespace, root: Path) -> int:
    from kernelgym.scoring import metrics
    from kernelgym.data.folder_eval import evaluate_folder
    from kernelgym.scoring.report import timing_note
    from kernelgym.cli.options import select_tasks
    from kernelgym.envs.prompt import printable

    out = Path(args.out) if args.out else root.resolve().parent / (root.resolve().name + "-eval")
    profile = judge_profile(args)
    if out.exists() and not out.is_dir():  # mkdir said only "[Errno 17] File exists"
        raise CliError(f"--out {out} is a file: it names the folder the reports are written to")
    earlier = [name for name in REPORT_FILES if (out / name).exists()]
    if earlier and not (args.force or args.resume):
        raise CliError(f"{out} already holds a report ({', '.join(earlier)}); pass --force to overwrite it "
                       "(or --resume to reuse its results)")
    tasks = select_tasks(args)
    try:
        with ray_evaluator(args) as pool:
            evaluation = evaluate_folder(root, tasks, out, backend=args.backend, profile=profile,
                                         device=args.device, jobs=args.jobs, resume=args.resume,
                                         ps=args.p or metrics.DEFAULT_PS, ks=args.k or metrics.DEFAULT_KS,
                                         cache_dir=args.cache_dir, evaluator=pool, progress=not args.no_progress,
                                         torch_policy=args.torch_policy)
    except KeyboardInterrupt:
        print(f"interrupted: the results so far are kept in {out / 'results.jsonl'}; add --resume to continue",
              file=sys.stderr)
        raise
    report = evaluation.report
    overall = report["overall"]
    answered = len({r["task_id"] for r in evaluation.rows})
    print(f"{len(evaluation.rows)} files, {answered} tasks: {overall['compiled']} compiled, "
          f"{overall['correct']} correct")
    if report["missing_samples"]:
        print(f"missing: {report['missing_samples']} sample(s) without a file ({len(report['missing_tasks'])} of "
              f"{overall['tasks']} tasks unanswered, {report['samples_per_task']} sample(s) per task), counted as "
              "failed; narrow the tasks with --level/--category/--pattern/--task")
    print("  ".join(f"{k} {v:.3f}" for k, v in overall["fast_p"].items()))
    passes = {k: v for k, v in overall.get("pass_at_k", {}).items() if v is not None}  # tasks with >= k samples
    if passes:
        print("  ".join(f"{k} {v:.3f}" for k, v in passes.items()))
    geo = overall["geomean_speedup"]
    print(f"geomean speedup {geo:.3f}" if geo is not None else "geomean speedup: not measured")
    print(timing_note(evaluation.report))
    failed = sorted((r for r in evaluation.rows if r["result"].get("status") != "ok"), key=lambda r: r["file"])
    if failed:
        print(f"failed: {len(failed)} file(s)")
        width = max(len(r["file"]) for r in failed)
        for r in failed:
            message = printable((str(r["result"].get("message") or "").strip().splitlines() or [""])[0])
            print(f"  {printable(r['file']):<{width}}  {printable(r['result'].get('status')):<13} {message[:160]}")
    for item in evaluation.unmatched:
        print(f"not evaluated: {printable(item['file'])}: {printable(item['reason'])}")
    for kind, path in evaluation.paths.items():
        print(f"{kind}: {path}")
    faults = report["judge_faults"]
    if faults:  # no verdict on these files: counted as failed until --resume evaluates them again
        print(f"the judge failed on {len(faults)} file(s), not the candidates (first: {printable(faults[0])}); "
              "they count as failed: rerun with --resume to evaluate them again")
        return 1
    return 0
