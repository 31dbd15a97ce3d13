"""A multi-turn episode with a model behind an OpenAI-compatible chat endpoint (e.g. a local vLLM server).

    vllm serve Qwen/Qwen2.5-Coder-7B-Instruct --port 8000          # any OpenAI-compatible server
    python examples/openai_multiturn.py --base-url http://127.0.0.1:8000/v1 --model Qwen/Qwen2.5-Coder-7B-Instruct \
        [--task L1/15_relu] [--turns 3] [--temperature 0.7] [--device cpu]

The loop: the first user turn is the environment's prompt; each answer is evaluated by ``env.step``; the
feedback goes back to the model as the next user turn, until the kernel is correct (and fast enough on a GPU)
or the turns run out.
"""

from __future__ import annotations

import argparse

import gymnasium as gym

import kernelgym  # noqa: F401  (registers the gym ids)
from kernelgym.data import chat
from kernelgym.data.openai_policy import OpenAIChatPolicy


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base-url", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--task", default="L1/15_relu")
    ap.add_argument("--tasks", default=None, help="task folder (default: the bundled suite)")
    ap.add_argument("--turns", type=int, default=3)
    ap.add_argument("--temperature", type=float, default=0.7)
    ap.add_argument("--max-tokens", type=int, default=4096)
    ap.add_argument("--device", default=None)
    args = ap.parse_args()

    client = OpenAIChatPolicy(args.base_url, args.model, temperature=args.temperature, max_tokens=args.max_tokens)
    client.check_reachable()
    env = gym.make("KernelGym-v0", tasks=args.tasks, max_turns=args.turns, device=args.device)
    obs, info = env.reset(seed=0, options={"task_id": args.task})
    messages = chat.start(obs["prompt"])
    for turn in range(1, args.turns + 1):
        answer = client.complete(messages)
        messages.append({"role": "assistant", "content": answer})
        obs, reward, terminated, truncated, info = env.step(answer)
        result = info["result"]
        print(f"turn {turn}: {result['status']} — {result['message']}  reward={reward:.3f}")
        if terminated or truncated:
            break
        messages.append({"role": "user", "content": chat.feedback_message(obs["feedback"], turn + 1, args.turns)})
    env.close()
    print(f"{len(messages)} messages in the conversation")
    return 0 if result["status"] == "ok" else 1


if __name__ == "__main__":
    raise SystemExit(main())
