"""Options shared by several subcommands, spelled the same everywhere."""

from __future__ import annotations

import argparse
import contextlib

from kernelgym.commands import CliError


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
    """``--backend``, ``--profile``, ``--device``, ``--cache-dir``, ``--jobs``, ``--ray``."""
    p.add_argument("--backend", default="triton", choices=["triton", "cuda"])
    p.add_argument("--profile", default="quick", choices=["quick", "full"], help="evaluation profile")
    p.add_argument("--device", default=None, help="cpu or cuda[:i] (default: the GPU if present, else cpu)")
    p.add_argument("--cache-dir", default=None, help="baseline cache folder (default ~/.cache/kernelgym)")
    p.add_argument("--jobs", type=int, default=None, help=jobs_help)
    p.add_argument("--ray", default=None, metavar="ADDRESS",
                   help="evaluate on a Ray cluster, one actor per GPU (RayEvalPool): 'auto' joins the running "
                        "cluster, 'local' starts one on this machine, or a cluster address")


@contextlib.contextmanager
def ray_evaluator(args: argparse.Namespace):
    """The :class:`~kernelgym.distributed.RayEvalPool` that ``--ray`` names (``None`` without it), closed on exit.

    Raises :class:`CliError` when Ray is not installed or the cluster cannot be reached.
    """
    if not getattr(args, "ray", None):
        yield None
        return
    try:
        import ray
    except ImportError:
        raise CliError("--ray needs Ray: pip install 'ray>=2.9'") from None
    from kernelgym.distributed import RayEvalPool

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
    finally:
        pool.close()
        if started_here:
            ray.shutdown()


def select_tasks(args: argparse.Namespace):
    """The TaskSet the task options name (``TaskError`` for unknown ids, categories or paths)."""
    from kernelgym.tasks import load_tasks

    tasks = load_tasks(args.tasks)
    return tasks.select(levels=getattr(args, "level", None), categories=getattr(args, "category", None),
                        pattern=getattr(args, "pattern", None), ids=getattr(args, "task_ids", None))


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
