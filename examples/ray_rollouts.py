"""Parallel rollouts on Ray: a vector env whose steps are evaluated concurrently by RayEvalPool.

    python examples/ray_rollouts.py [--envs 4] [--steps 2] [--fake-gpus 0] [--address auto]

On a GPU machine or cluster, the pool starts one evaluation actor per GPU. Without GPUs (or with --fake-gpus N to
pretend, as the tests do) the actors evaluate on the CPU interpreter. The "policy" here replays bundled solutions;
plug your LLM in its place.
"""

from __future__ import annotations

import argparse

import ray

from kernelgym.data.policies import ReplayPolicy
from kernelgym.envs.vector import KernelVectorEnv
from kernelgym.evaluators import RayEvalPool


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--envs", type=int, default=4)
    ap.add_argument("--steps", type=int, default=2)
    ap.add_argument("--fake-gpus", type=int, default=0, help="start a local Ray with this many fake GPUs")
    ap.add_argument("--address", default=None, help="an existing Ray cluster ('auto')")
    args = ap.parse_args()

    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_gpus=args.fake_gpus or None, include_dashboard=False, log_to_driver=False)
    pool = RayEvalPool(concurrency_per_gpu=2)
    policy = ReplayPolicy()
    venv = KernelVectorEnv(args.envs, pool, task_ids=policy.task_ids()[:args.envs], max_turns=2)
    obs, _ = venv.reset(seed=0)
    for step in range(args.steps):
        actions = [policy({"task_id": task_id}) for task_id in obs["task_id"]]
        obs, rewards, terminated, truncated, infos = venv.step(actions)
        statuses = [info["result"]["status"] if info and "result" in info else "reset" for info in infos["per_env"]]
        print(f"step {step}: tasks {list(obs['task_id'])} statuses {statuses} rewards {rewards.round(3).tolist()}")
    venv.close()
    pool.close()
    ray.shutdown()


if __name__ == "__main__":
    main()
