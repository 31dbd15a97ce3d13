"""SkyRL end to end with the real ``skyrl_gym``: the environment made by ``skyrl_gym.make("kernelgym", ...)`` as
SkyRL's generator makes it, stepped through multi-turn episodes (the real judge in one test), its metrics
aggregated by ``skyrl_gym.metrics.aggregate_for_environment``, and a tiny random model trained for two steps on
the rewards of episodes it generated.

SkyRL's trainer package (``skyrl`` 0.3, which holds ``SkyRLGymGenerator``) does not import on Python 3.11 and needs
vLLM, so its generator's agent loop is reproduced here step for step (``env.init`` -> chat template -> generate ->
``env.step`` -> observation tokens appended, loss-masked -> ... -> ``env.get_metrics`` -> ``env.close``).
"""

from __future__ import annotations

import pytest

skyrl_gym = pytest.importorskip("skyrl_gym", reason="the dev extra installs skyrl-gym")  # a fallback: CI has it

import torch  # noqa: E402

import tiny_lm  # noqa: E402
from conftest import DATA, InstantEvaluator  # noqa: E402
from kernelgym.integrations.skyrl import ENV_ID, KernelTextEnv  # noqa: E402  (importing it registers the env)

TASK = "L1/1_scaled_relu"
CORRECT_ON_CPU = 0.3  # the default "speedup" reward of a correct kernel whose speed is not measured


def test_make_gives_a_skyrl_env_that_runs_on_the_real_judge():
    from skyrl_gym.metrics import aggregate_for_environment

    assert ENV_ID in skyrl_gym.registry
    extras = {"reward_spec": {"method": "rule", "ground_truth": TASK}, "max_turns": 2,  # as SkyRL's generator sets
              "data_source": "kernelgym"}
    env = skyrl_gym.make(ENV_ID, env_config={"tasks": str(DATA / "tasks"), "device": "cpu", "max_workers": 1},
                         extras=extras)
    assert isinstance(env, skyrl_gym.Env) and isinstance(env, KernelTextEnv)
    chat = [{"role": "user", "content": "Write ModelNew for the scaled relu."}]
    prompt, metadata = env.init(chat)
    assert prompt == chat and metadata["task_id"] == TASK

    first = env.step(tiny_lm.WRONG_ANSWER)
    assert first["done"] is False and first["reward"] == 0.0
    (feedback,) = first["observations"]
    assert feedback["role"] == "user" and "Status: incorrect" in feedback["content"]
    assert "First failing trial" in feedback["content"] and "Attempt 2 of 2" in feedback["content"]
    second = env.step(tiny_lm.GOOD_ANSWER)
    assert second["done"] is True and second["observations"] == []
    assert second["reward"] == pytest.approx(CORRECT_ON_CPU) and second["metadata"]["result"]["status"] == "ok"
    metrics = env.get_metrics()
    env.close()

    other = skyrl_gym.make(ENV_ID, env_config={"tasks": str(DATA / "tasks"), "device": "cpu"},
                           extras={"reward_spec": {"ground_truth": TASK}, "max_turns": 1})
    other.init(chat)
    assert other.env.evaluator is env.env.evaluator  # one shared pool, not a judge per trajectory
    last = other.step("no code at all")
    assert last["done"] is True and last["reward"] == 0.0
    summary = aggregate_for_environment(ENV_ID, [metrics, other.get_metrics()])
    assert summary == {"turns": 1.5, "correct": 0.5, "best_speedup": 0.0, "best_reward": pytest.approx(0.15),
                       "final_reward": pytest.approx(0.15), "episodes": 2}
    other.close()


def _ids(tok, messages, generation_prompt):
    return list(tok.apply_chat_template(messages, add_generation_prompt=generation_prompt, tokenize=True,
                                        return_dict=False))


def _observation_ids(tok, observations):
    """SkyRL's fixed-base tokenisation of observations (``get_obs_ids_from_obs``)."""
    base = [{"role": "system", "content": "You are a helpful assistant."}, {"role": "user", "content": "I am a user."}]
    base_ids = _ids(tok, base, False)
    base_ids = base_ids[:len(base_ids) - base_ids[::-1].index(tok.eos_token_id)]
    return _ids(tok, base + observations, True)[len(base_ids):]


def _agent_loop(tok, lm, env, prompt, max_new_tokens=2):
    """One trajectory as SkyRLGymGenerator.agent_loop runs it (token in, token out, multi-turn chat)."""
    chat, _ = env.init(prompt)
    input_ids = _ids(tok, chat, True)
    prompt_len, loss_mask, rewards, done = len(input_ids), [], [], False
    config = dict(max_new_tokens=max_new_tokens, do_sample=True, suppress_tokens=tiny_lm.answer_only(tok),
                  pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id)
    while not done:
        with torch.no_grad():
            out = lm.generate(torch.tensor([input_ids]), **config)[0, len(input_ids):].tolist()
        output_ids = out[:out.index(tok.eos_token_id) + 1] if tok.eos_token_id in out else out
        step = env.step(tok.decode(output_ids, skip_special_tokens=True))
        done = step["done"]
        obs_ids = _observation_ids(tok, step["observations"]) if step["observations"] else []
        input_ids += output_ids + obs_ids
        loss_mask += [1] * len(output_ids) + [0] * len(obs_ids)
        rewards.append(step["reward"])
    metrics = env.get_metrics()
    env.close()
    return input_ids, prompt_len, loss_mask, sum(rewards), metrics


def test_generator_style_rollouts_train_a_tiny_model(monkeypatch):
    from skyrl_gym.metrics import aggregate_for_environment

    tok = tiny_lm.tokenizer()
    lm = tiny_lm.model(tok, seed=3)
    evaluator = InstantEvaluator()
    optimizer = torch.optim.AdamW(lm.parameters(), lr=0.05)
    before = [p.detach().clone() for p in lm.parameters()]
    all_metrics, feedback_seen = [], 0
    torch.manual_seed(0)  # the sampling below
    for step in range(2):
        lm.eval()
        trajectories = []
        for i in range(4):
            env = skyrl_gym.make(ENV_ID, env_config={"tasks": str(DATA / "tasks"), "evaluator": evaluator},
                                 extras={"reward_spec": {"ground_truth": TASK}, "max_turns": 3})
            trajectories.append(_agent_loop(tok, lm, env, [{"role": "user", "content": f"Write ModelNew #{i}."}]))
        for ids, prompt_len, mask, reward, metrics in trajectories:
            assert len(ids) == prompt_len + len(mask)
            assert reward == pytest.approx(CORRECT_ON_CPU * metrics["correct"])
            assert 1 <= metrics["turns"] <= 3 and (metrics["correct"] or metrics["turns"] == 3)
            response = ids[prompt_len:]
            feedback = tok.decode([t for t, m in zip(response, mask) if m == 0], skip_special_tokens=True)
            assert feedback.count("Feedback on your previous attempt") == metrics["turns"] - 1
            feedback_seen += metrics["turns"] - 1
            all_metrics.append(metrics)
        # a REINFORCE step with the group's mean reward as baseline (the GRPO advantage, unscaled)
        rewards = torch.tensor([t[3] for t in trajectories])
        advantages = rewards - rewards.mean()
        lm.train()
        loss = torch.zeros(())
        for (ids, prompt_len, mask, _, _), advantage in zip(trajectories, advantages):
            logits = lm(input_ids=torch.tensor([ids])).logits[0, prompt_len - 1:-1]
            logp = torch.log_softmax(logits.float(), -1).gather(-1, torch.tensor(ids[prompt_len:])[:, None])[:, 0]
            loss = loss - advantage * (logp * torch.tensor(mask, dtype=torch.float)).sum() / max(sum(mask), 1)
        optimizer.zero_grad()
        (loss / len(trajectories)).backward()
        optimizer.step()

    summary = aggregate_for_environment(ENV_ID, all_metrics)
    assert summary["episodes"] == 8 and 0.0 < summary["correct"] < 1.0 and feedback_seen > 0
    assert len(evaluator.policies) == sum(m["turns"] for m in all_metrics)
    assert any(not torch.equal(a, b) for a, b in zip(before, lm.parameters()))
