"""One episode answered by the replay policy: stored candidate files (by default the bundled verified solutions).

    python examples/replay_episode.py [--task L1/15_relu] [--replay-dir DIR] [--tasks PATH] [--turns 2]
                                      [--device cpu]

Prints the start of the prompt, then each attempt's verdict and reward.
"""

from __future__ import annotations

import argparse

import gymnasium as gym

import kernelgym  # noqa: F401  (registers the gym ids)
from kernelgym.data.policies import ReplayPolicy


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", default="L1/15_relu", help="task id")
    ap.add_argument("--tasks", default=None, help="task folder (default: the bundled suite)")
    ap.add_argument("--replay-dir", default=None, help="folder of candidate files (default: bundled solutions)")
    ap.add_argument("--turns", type=int, default=2)
    ap.add_argument("--device", default=None, help="cpu or cuda[:i] (default: the GPU if present)")
    args = ap.parse_args()

    policy = ReplayPolicy(args.replay_dir)
    env = gym.make("KernelGym-v0", tasks=args.tasks, max_turns=args.turns, device=args.device)
    obs, info = env.reset(seed=0, options={"task_id": args.task})
    print(f"task {info['task_id']} ({info['task']['category']}) on {env.unwrapped.device}")
    print("\n".join(obs["prompt"].splitlines()[:6]) + "\n...")
    done = False
    while not done:
        obs, reward, terminated, truncated, info = env.step(policy(obs))
        result = info["result"]
        print(f"turn {info['turn']}: {result['status']} — {result['message']}  reward={reward:.3f}")
        done = terminated or truncated
    env.close()
    return 0 if result["status"] == "ok" else 1


if __name__ == "__main__":
    raise SystemExit(main())
