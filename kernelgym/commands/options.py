"""Options shared by several subcommands, spelled the same everywhere."""

from __future__ import annotations

import argparse


def add_task_options(p: argparse.ArgumentParser, selection: bool = True) -> None:
    """``--tasks PATH`` and, with ``selection``, ``--level``, ``--category``, ``--pattern``, ``--task``."""
    p.add_argument("--tasks", default=None, metavar="PATH",
                   help="task folder, file or KernelBench parquet (default: the bundled suite)")
    if selection:
        p.add_argument("--level", action="append", type=int, help="keep this level (repeatable)")
        p.add_argument("--category", action="append", help="keep this category (repeatable)")
        p.add_argument("--pattern", help="fnmatch pattern over task ids, e.g. 'L1/*relu*'")
        p.add_argument("--task", action="append", dest="task_ids", metavar="TASK_ID",
                       help="keep this task id (repeatable)")


def add_judge_options(p: argparse.ArgumentParser, jobs_help: str) -> None:
    """``--backend``, ``--profile``, ``--device``, ``--cache-dir``, ``--jobs``."""
    p.add_argument("--backend", default="triton", choices=["triton", "cuda"])
    p.add_argument("--profile", default="quick", choices=["quick", "full"], help="evaluation profile")
    p.add_argument("--device", default=None, help="cpu or cuda[:i] (default: the GPU if present, else cpu)")
    p.add_argument("--cache-dir", default=None, help="baseline cache folder (default ~/.cache/kernelgym)")
    p.add_argument("--jobs", type=int, default=None, help=jobs_help)


def select_tasks(args: argparse.Namespace):
    """The TaskSet the task options name (``TaskError`` for unknown ids, categories or paths)."""
    from kernelgym.tasks import load_tasks

    tasks = load_tasks(args.tasks)
    return tasks.select(levels=getattr(args, "level", None), categories=getattr(args, "category", None),
                        pattern=getattr(args, "pattern", None), ids=getattr(args, "task_ids", None))
