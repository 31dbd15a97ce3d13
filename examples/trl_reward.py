"""kernelgym as a TRL GRPO reward function, called exactly as GRPOTrainer calls it (no model, no TRL needed).

    python examples/trl_reward.py [--task L1/15_relu] [--device cpu]

With TRL installed, pass the same function to the trainer::

    trainer = GRPOTrainer(model=..., reward_funcs=[make_reward_func()], train_dataset=dataset)  # task_id column
"""

from __future__ import annotations

import argparse

from kernelgym.data.policies import ReplayPolicy
from kernelgym.integrations.trl import make_reward_func


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--task", default="L1/15_relu")
    ap.add_argument("--tasks", default=None, help="task folder (default: the bundled suite)")
    ap.add_argument("--replay-dir", default=None, help="folder of candidate files (default: bundled solutions)")
    ap.add_argument("--device", default=None)
    args = ap.parse_args()

    good = ReplayPolicy(args.replay_dir)({"task_id": args.task})
    reward_func = make_reward_func(tasks=args.tasks, device=args.device, reward="speedup", max_workers=2)
    prompts = [[{"role": "user", "content": f"Write a kernel for {args.task}"}]] * 3
    completions = [
        [{"role": "assistant", "content": good}],                          # conversational format
        [{"role": "assistant", "content": "I cannot write that kernel."}],
        [{"role": "assistant", "content": "```python\nclass ModelNew(:\n```"}],
    ]
    rewards = reward_func(prompts=prompts, completions=completions, task_id=[args.task] * 3,
                          completion_ids=None, trainer_state=None)
    for reward, result in zip(rewards, reward_func.last_results):
        print(f"reward {reward:.3f}  {result.status}: {result.message[:100]}")
    return 0 if rewards[0] > max(rewards[1:]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
