"""Collect episodes through an RLlib EnvRunner with a text policy (here: replaying bundled solutions).

    python examples/rllib_text_policy.py [--episodes 2] [--task L1/15_relu] [--device cpu]

Replace ``replay`` with your LLM client: any callable ``observation -> text`` (or a ``"module:function"`` string, which
remote EnvRunners import by name).
"""

from __future__ import annotations

import argparse

from ray.rllib.algorithms.ppo import PPOConfig

from kernelgym.data.policies import ReplayPolicy
from kernelgym.integrations.rllib import register_rllib_envs, text_policy_env_runner_cls


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=2)
    ap.add_argument("--task", default="L1/15_relu")
    ap.add_argument("--device", default=None)
    args = ap.parse_args()

    register_rllib_envs()
    replay = ReplayPolicy()
    runner_cls = text_policy_env_runner_cls()
    config = (PPOConfig()
              .environment("KernelGym-L1-v0", env_config={"task_ids": [args.task], "device": args.device,
                                                          "max_turns": 2, "policy": replay})
              .env_runners(env_runner_cls=runner_cls))
    runner = runner_cls(config=config)
    for episode in runner.sample(num_episodes=args.episodes):
        result = episode.get_infos()[-1]["result"]
        print(f"episode {episode.id_[:8]}: {len(episode)} step(s), return {episode.get_return():.3f}, "
              f"last verdict {result['status']}: {result['message'][:100]}")
    runner.stop()


if __name__ == "__main__":
    main()
