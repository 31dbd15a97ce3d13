"""Options shared by several subcommands, spelled the same everywhere."""

from __future__ import annotations

import argparse
import contextlib

from kernelgym.cli.errors import CliError


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
    """``--backend``, ``--profile``, ``--torch-policy``, ``--device``, ``--cache-dir``, ``--jobs``, ``--ray``."""
    from kernelgym.judge import policy

    p.add_argument("--backend", default="triton", choices=["triton", "cuda"],
                   help="the language candidates are written in (default triton)")
    p.add_argument("--profile", default="quick", choices=["quick", "full"],
                   help="evaluation profile: quick (RL inner loop) or full (benchmarking); default quick")
    p.add_argument("--limit", action="append", default=None, metavar="STAGE=SECONDS",
                   help="replace a stage's time limit (repeatable; stages: startup, compile, correctness, timing), "
                        "e.g. --limit compile=30")
    p.add_argument("--torch-policy", default=policy.DEFAULT, choices=policy.POLICIES,
                   help="how much of the forward's work torch may do: strict (none: all compute in the candidate's "
                        "kernels), partial (default: torch may do part; kernel_coverage reports the candidate's "
                        "share), off (hard anti-hack rules only); see docs/SECURITY.md")
    p.add_argument("--device", default=None, help="cpu or cuda[:i] (default: the GPU if present, else cpu)")
    p.add_argument("--cache-dir", default=None, help="baseline cache folder (default ~/.cache/kernelgym)")
    p.add_argument("--jobs", type=int, default=None, help=jobs_help)
    p.add_argument("--ray", default=None, metavar="ADDRESS",
                   help="evaluate on a Ray cluster, one actor per GPU (RayEvalPool): 'auto' joins the running "
                        "cluster, 'local' starts one on this machine, or a cluster address")


@contextlib.contextmanager
def ray_evaluator(args: argparse.Namespace):
    """The :class:`~kernelgym.evaluators.ray_pool.RayEvalPool` that ``--ray`` names (``None`` without it), closed on exit.

    Raises :class:`CliError` when Ray is not installed or the cluster cannot be reached.
    """
    if not getattr(args, "ray", None):
        yield None
        return
    try:
        import ray
    except ImportError:
        raise CliError("--ray needs Ray: pip install 'ray>=2.9'") from None
    from kernelgym.evaluators.ray_pool import RayEvalPool

    address = None if args.ray == "local" else args.ray
    if address not in (None, "auto") and not _port_open(address):
        raise CliError(f"cannot reach Ray cluster {args.ray!r}: nothing answers at that address")
    started_here = not ray.is_initialized()
    try:
        pool = RayEvalPool(address=address, judge_kwargs={"cache_dir": args.cache_dir})
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise CliError(f"cannot reach Ray cluster {args.ray!r}: {str(exc).splitlines()[0][:200]}") from None
    try:
        yield pool
    except BaseException:  # Ctrl-C or an error: the evaluations in flight are not waited for
        pool.close(abort=True)
        raise
    else:
        pool.close()
    finally:
        if started_here:
            ray.shutdown()


def check_jobs(args: argparse.Namespace) -> None:
    """:class:`CliError` for ``--jobs`` below 1 (``--jobs 0`` silently ran the default number of jobs)."""
    jobs = getattr(args, "jobs", None)
    if jobs is not None and jobs < 1:
        raise CliError(f"--jobs must be at least 1, got {jobs}")


def judge_profile(args: argparse.Namespace):
    """``--profile`` with the ``--limit STAGE=SECONDS`` options applied (ValueError for an unknown stage)."""
    from kernelgym.judge.profiles import parse_limits, with_limits

    return with_limits(args.profile, parse_limits(getattr(args, "limit", None)))


def select_tasks(args: argparse.Namespace):
    """The TaskSet the task options name (``TaskError`` for unknown ids, categories or paths; :class:`CliError`
    when the filters together match nothing)."""
    from kernelgym.tasks import load_tasks

    return narrow(load_tasks(args.tasks), levels=getattr(args, "level", None),
                  categories=getattr(args, "category", None), pattern=getattr(args, "pattern", None),
                  ids=getattr(args, "task_ids", None))


def narrow(tasks, levels=None, categories=None, pattern=None, ids=None):
    """``tasks.select(...)``, or a one-line :class:`CliError` naming the filter that matched nothing and what
    there is, when nothing is left."""
    selected = tasks.select(levels=levels or None, categories=categories or None, pattern=pattern, ids=ids or None)
    if len(selected):
        return selected
    if not len(tasks):
        raise CliError("the task source holds no task")
    if levels and not len(tasks.select(levels=levels)):
        present = sorted({t.level for t in tasks})
        raise CliError(f"no task at --level {', '.join(str(x) for x in levels)}; levels present: "
                       f"{', '.join(str(x) for x in present)}")
    if categories and not len(tasks.select(categories=categories)):
        present = sorted({t.category for t in tasks})
        raise CliError(f"no task in --category {', '.join(categories)}; categories present: {', '.join(present)}")
    if pattern is not None and not len(tasks.select(pattern=pattern)):
        ids_ = tasks.ids
        raise CliError(f"no task id matches --pattern {pattern!r}; ids look like {ids_[0]}, {ids_[-1]} "
                       f"({len(ids_)} tasks; list them with kernelgym tasks list --ids)")
    given = [f"--level {', '.join(str(x) for x in levels)}" if levels else "",
             f"--category {', '.join(categories)}" if categories else "",
             f"--pattern {pattern!r}" if pattern is not None else "", "--task ..." if ids else ""]
    raise CliError(f"no task matches {' and '.join(g for g in given if g)} together (each matches some tasks "
                   "alone); widen the selection")


def _port_open(address: str, timeout_s: float = 5.0) -> bool:
    """Whether a TCP connection to ``[ray://]host:port`` succeeds (``ray.init`` would otherwise wait for minutes)."""
    import socket

    host, _, port = address.split("://", 1)[-1].rpartition(":")
    if not host or not port.isdigit():
        return True  # not host:port: leave the judgement to Ray
    try:
        with socket.create_connection((host, int(port)), timeout=timeout_s):
            return True
    except OSError:
        return False
