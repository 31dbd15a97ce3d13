"""Command line: ``kernelgym demo | tasks list|lint|show | eval | collect | bench``.

Every subcommand has ``--help``. User errors (unknown task id, unreadable file, unreachable endpoint, bad option)
print one line on stderr starting with ``kernelgym: error:`` and exit with status 2; warnings print as one
``kernelgym: warning:`` line each. A device that is not available (``--device cuda`` on a CPU-only torch) and task
filters that match nothing are such errors. A reader that closes the pipe early (``kernelgym tasks list | head``)
ends the command quietly (status 141). ``--version`` prints the version. ``eval``, ``collect`` and ``bench`` live in
modules of their own: :mod:`kernelgym.cli.evaluate`, :mod:`kernelgym.cli.collect`, :mod:`kernelgym.cli.bench`.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

from kernelgym.cli.errors import CliError
from kernelgym.judge.sandbox import SandboxUnavailable


def _load(path: str | None):
    from kernelgym.tasks import load_tasks

    return load_tasks(path)


# -- demo --------------------------------------------------------------------------------------------------
def cmd_demo(args) -> int:
    """One episode of KernelGym-L1-v0 (the bundled level-1 tasks) answered by the replay policy with a bundled
    solution."""
    import gymnasium as gym

    import kernelgym  # noqa: F401  (registers the ids)
    from kernelgym.data.policies import ReplayPolicy

    policy = ReplayPolicy()
    env = gym.make("KernelGym-L1-v0", max_turns=args.turns, device=args.device, profile=args.profile)
    solved = [t for t in env.unwrapped.tasks.ids if policy.has(t)]
    if not solved:
        raise CliError(f"no bundled level-1 solution found under {policy.root / policy.backend / 'L1'}")
    task_id = args.task or solved[0]
    obs, info = env.reset(seed=args.seed, options={"task_id": task_id})
    print(f"== task {task_id} on {env.unwrapped.device}")
    print("== observation: prompt (first 40 lines)")
    print("\n".join(obs["prompt"].splitlines()[:40]))
    print("   ...")
    answer = policy(obs)
    obs, reward, terminated, truncated, info = env.step(answer)
    result = info["result"]
    print("== verdict")
    print(obs["feedback"])
    print(f"== reward {reward:.3f}  terminated={terminated}  truncated={truncated}")
    print("== stage durations (s): " + ", ".join(f"{k}={v:.2f}" for k, v in result["durations"].items()))
    env.close()
    return 0 if result["status"] == "ok" else 1


# -- tasks -------------------------------------------------------------------------------------------------
def cmd_tasks_list(args) -> int:
    from kernelgym.tasks import CATEGORIES

    tasks = _select(_load(args.path), args)
    if args.ids:
        for t in tasks:
            print(f"{t.id}\t{t.category}\t{t.dtype}")
        return 0
    counts = tasks.counts()
    prefixes = sorted({p for p, _ in counts})
    width = max(len(c) for c in CATEGORIES)
    print(f"{'category':<{width}} " + " ".join(f"{p:>5}" for p in prefixes) + "  total")
    for cat in CATEGORIES:
        row = [counts.get((p, cat), 0) for p in prefixes]
        print(f"{cat:<{width}} " + " ".join(f"{n:>5}" for n in row) + f"  {sum(row):>5}")
    totals = [sum(n for (p, _), n in counts.items() if p == q) for q in prefixes]
    print(f"{'total':<{width}} " + " ".join(f"{n:>5}" for n in totals) + f"  {sum(totals):>5}")
    return 0


def cmd_tasks_show(args) -> int:
    task = _load(args.path).get(args.task_id)
    print(json.dumps({k: v for k, v in task.to_dict().items() if k != "source"}, indent=1))
    print(task.source)
    return 0


def cmd_tasks_lint(args) -> int:
    from kernelgym.judge.lint import lint_tasks

    tasks = _select(_load(args.path), args)

    def show(report) -> None:
        if not report.ok or args.verbose:
            figures = " ".join(f"{k}={v:.4g}" for k, v in report.figures.items() if isinstance(v, float))
            print(report.render() + (f"  [{figures}]" if figures and args.verbose else ""), flush=True)

    reports = lint_tasks(tasks, device=args.device, jobs=args.jobs, on_report=show)
    failed = [r for r in reports if not r.ok]
    print(f"{len(reports) - len(failed)} passed, {len(failed)} failed")
    if args.json:
        Path(args.json).write_text(json.dumps([r.to_dict() for r in reports], indent=1))
    return 1 if failed else 0


def _select(tasks, args):
    from kernelgym.cli.options import narrow

    return narrow(tasks, levels=args.level, categories=args.category, pattern=args.pattern)


def build_parser() -> argparse.ArgumentParser:
    from kernelgym._version import __version__

    parser = argparse.ArgumentParser(prog="kernelgym", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"kernelgym {__version__}",
                        help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("demo", help="run one episode with a bundled solution and print what happens")
    p.add_argument("--task", help="task id (default: the first level-1 task with a bundled solution)")
    p.add_argument("--device", default=None, help="cpu or cuda[:i] (default: GPU if present)")
    p.add_argument("--profile", default="quick", choices=["quick", "full"],
                   help="evaluation profile: quick (RL inner loop) or full (benchmarking); default quick")
    p.add_argument("--turns", type=int, default=2, help="attempts in the episode (default 2)")
    p.add_argument("--seed", type=int, default=0, help="seed of env.reset (default 0)")
    p.set_defaults(func=cmd_demo)

    tasks = sub.add_parser("tasks", help="list, show or lint tasks").add_subparsers(dest="tasks_command",
                                                                                    required=True)
    for name, func, helptext in (("list", cmd_tasks_list, "counts per level x category (or --ids)"),
                                 ("lint", cmd_tasks_lint, "check tasks for determinism, degeneracy, shapes")):
        p = tasks.add_parser(name, help=helptext)
        p.add_argument("--path", "--tasks", dest="path", default=None,
                       help="task folder, file or parquet (default: bundled suite)")
        p.add_argument("--level", action="append", type=int, help="keep this level (repeatable)")
        p.add_argument("--category", action="append", help="keep this category (repeatable)")
        p.add_argument("--pattern", help="fnmatch pattern over task ids, e.g. 'L2/*conv*'")
        p.set_defaults(func=func)
        if name == "list":
            p.add_argument("--ids", action="store_true", help="print one task id per line instead of counts")
        else:
            p.add_argument("--device", default="cpu", help="cpu (small shapes) or cuda (default shapes)")
            p.add_argument("--jobs", type=int, default=1, help="parallel lint processes")
            p.add_argument("--json", help="write the full report to this file")
            p.add_argument("-v", "--verbose", action="store_true", help="print passing tasks too")
    p = tasks.add_parser("show", help="print one task's metadata and source")
    p.add_argument("task_id", help="the task's id, e.g. L1/15_relu (kernelgym tasks list --ids lists them)")
    p.add_argument("--path", "--tasks", dest="path", default=None, help="task folder, file or parquet")
    p.set_defaults(func=cmd_tasks_show)

    from kernelgym.cli import bench, collect, evaluate

    evaluate.register(sub)
    collect.register(sub)
    bench.register(sub)
    return parser


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"kernelgym: warning: {message}", file=sys.stderr)


def _pipe_closed() -> int:
    """The reader of stdout went away (``kernelgym tasks list | head -1``): stop quietly, as ``yes | head`` does,
    with status 141 (128 + SIGPIPE). stdout is pointed at /dev/null so that the interpreter's last flush is quiet."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 141


def main(argv: list[str] | None = None) -> int:
    from kernelgym.tasks import TaskError

    argv = list(sys.argv[1:] if argv is None else argv)
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        try:
            if argv[:1] == ["bench"]:  # every argument belongs to the benchmark script
                from kernelgym.cli import bench

                return bench.run(argv[1:])
            args = build_parser().parse_args(argv)
            if getattr(args, "device", None) is not None:
                from kernelgym.hardware import require_device

                args.device = require_device(args.device)
            code = args.func(args)
            sys.stdout.flush()  # a closed pipe shows here, inside the try, not at interpreter exit
            return code
        except BrokenPipeError:
            return _pipe_closed()
        except KeyboardInterrupt:  # evaluations in flight were ended on the way out (LocalEvaluator.close)
            print("kernelgym: interrupted", file=sys.stderr)
            return 130
        except (CliError, TaskError, ValueError, OSError, SandboxUnavailable) as exc:
            print(f"kernelgym: error: {exc}", file=sys.stderr)
            return 2


if __name__ == "__main__":
    sys.exit(main())
