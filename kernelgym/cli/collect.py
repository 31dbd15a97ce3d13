"""``kernelgym collect``: run a policy over tasks for K turns x N samples into JSONL + Parquet."""

from __future__ import annotations

import argparse
from pathlib import Path

from kernelgym.cli.errors import CliError
from kernelgym.cli.options import (add_judge_options, add_task_options, check_jobs, judge_profile, ray_evaluator,
                                        select_tasks)

DESCRIPTION = """Run a policy over a task set, K turns x N samples per task, one record per episode.

Policies: 'replay' (stored candidate files: --replay-dir, default the bundled solutions), 'openai' (an
OpenAI-compatible chat endpoint: --base-url, --model), or MODULE:FUNCTION / FILE.py:FUNCTION (any callable
policy(observation) -> str). Episodes are appended to --out (JSONL, one fsync-ed line each) and the file is
converted to Parquet (same stem) at the end. --resume continues a file, skipping finished (task, sample) pairs."""


def register(sub) -> None:
    p = sub.add_parser("collect", help="run a policy over tasks and record episodes (JSONL + Parquet)",
                       description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="the JSONL file to write (Parquet goes next to it)")
    p.add_argument("--policy", default="replay", help="replay | openai | MODULE:FUNCTION | FILE.py:FUNCTION")
    p.add_argument("--replay-dir", default=None, help="replay: folder of candidate files (see docs/DATASETS.md)")
    g = p.add_argument_group("openai policy")
    g.add_argument("--base-url", help="e.g. http://127.0.0.1:8000/v1")
    g.add_argument("--model", help="served model name")
    g.add_argument("--api-key-env", default="OPENAI_API_KEY", help="environment variable holding the API key")
    g.add_argument("--temperature", type=float, default=0.7, help="sampling temperature (default 0.7)")
    g.add_argument("--top-p", type=float, default=1.0, help="nucleus sampling top-p (default 1.0)")
    g.add_argument("--max-tokens", type=int, default=4096, help="most tokens per answer (default 4096)")
    g.add_argument("--request-timeout", type=float, default=600.0, help="seconds per chat request")
    g.add_argument("--system", default=None, help="a system message put before the prompt")
    add_task_options(p)
    p.add_argument("--samples", type=int, default=1, help="N: episodes per task")
    p.add_argument("--turns", type=int, default=1, help="K: attempts per episode")
    p.add_argument("--reward", default="speedup", help="reward name (speedup, correct, fast_p:1.5, shaped)")
    p.add_argument("--seed", type=int, default=0, help="episode s of a task is seeded seed + s")
    add_judge_options(p, "episodes played at once (default 1; with --ray the pool's concurrency)")
    p.add_argument("--resume", action="store_true", help="continue --out, skipping finished episodes")
    p.add_argument("--to-parquet", action="store_true", help="only convert --out to Parquet, collect nothing")
    p.add_argument("--no-parquet", action="store_true", help="do not write the Parquet file at the end")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def build_policy(args: argparse.Namespace, tasks=None):
    """The policy the options name; a :class:`CliError` (or EndpointError) when it cannot be used. ``tasks``: the
    tasks to be played, so that a replayed file answers at most one of them (as ``kernelgym eval`` reads it)."""
    spec = args.policy
    if spec == "replay":
        from kernelgym.data.policies import ReplayPolicy

        if args.replay_dir is not None and not Path(args.replay_dir).is_dir():
            raise CliError(f"cannot read replay folder {args.replay_dir}")
        return ReplayPolicy(args.replay_dir, backend=args.backend,
                            task_ids=None if tasks is None else tasks.ids)
    if spec == "openai":
        from kernelgym.data.openai_policy import OpenAIChatPolicy

        if not args.base_url or not args.model:
            raise CliError("--policy openai needs --base-url and --model")
        policy = OpenAIChatPolicy(args.base_url, args.model, temperature=args.temperature, top_p=args.top_p,
                                  max_tokens=args.max_tokens, seed=args.seed, system=args.system,
                                  timeout_s=args.request_timeout, api_key_env=args.api_key_env)
        policy.check_reachable()
        return policy
    if ":" in spec:
        from kernelgym.data.policies import load_callable

        return load_callable(spec)
    raise CliError(f"unknown policy {spec!r}: use replay, openai, MODULE:FUNCTION or FILE.py:FUNCTION")


def run(args: argparse.Namespace) -> int:
    from kernelgym.data.records import arrow_schema
    from kernelgym.data.writers import jsonl_to_parquet

    out = Path(args.out)
    if args.to_parquet:
        if not out.is_file():
            raise CliError(f"cannot read {out}")
        print(f"wrote {jsonl_to_parquet(out, schema=arrow_schema())}")
        return 0
    from kernelgym.data.collect import check_output, collect

    check_jobs(args)
    check_output(out, args.resume)
    tasks = select_tasks(args)
    if len(tasks) == 0:
        raise CliError("no task matches the selection")
    policy = build_policy(args, tasks)
    has = getattr(policy, "has", None)
    if has is not None and not any(has(t.id) for t in tasks):
        raise CliError(f"the {args.policy} policy has no candidate for any selected task")

    with ray_evaluator(args) as pool:
        jobs = args.jobs or (pool.concurrency if pool is not None else 1)
        stats = collect(policy, tasks, out, samples=args.samples, max_turns=args.turns, backend=args.backend,
                        profile=judge_profile(args), reward=args.reward, device=args.device, seed=args.seed,
                        torch_policy=args.torch_policy,
                        resume=args.resume, jobs=jobs, evaluator=pool, cache_dir=args.cache_dir,
                        progress=not args.no_progress, parquet=not args.no_parquet)
    print(stats.summary())
    if stats.skipped_tasks:
        print(f"skipped {len(stats.skipped_tasks)} task(s) the policy cannot answer")
    if stats.parquet:
        print(f"wrote {stats.parquet}")
    if stats.failed:
        print(f"{stats.failed} episode(s) failed (first: {stats.errors[0]}); rerun with --resume to retry them")
        return 1
    return 0
