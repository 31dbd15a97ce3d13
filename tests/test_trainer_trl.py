"""TRL end to end: GRPOTrainer (the real library) trains a tiny random model for two steps on kernelgym rewards.

The single-turn test scores with the real judge (candidates compiled and run on the Triton CPU interpreter); the
multi-turn test checks the wiring of ``rollout_func`` with the instant evaluator of conftest.
"""

from __future__ import annotations

import os

import pytest

pytest.importorskip("trl", reason="the dev extra installs trl")  # a fallback only: CI installs it

import tiny_lm  # noqa: E402
from conftest import DATA, InstantEvaluator  # noqa: E402
from kernelgym.integrations.scorer import Scorer  # noqa: E402
from kernelgym.integrations.trl import make_reward_func, make_rollout_func  # noqa: E402

TASK = "L1/1_scaled_relu"
CORRECT_ON_CPU = 0.3  # the default "speedup" reward of a correct kernel whose speed is not measured


def _dataset(n: int):
    from datasets import Dataset

    return Dataset.from_list([{"prompt": [{"role": "user", "content": f"Write ModelNew for {TASK} (#{i})."}],
                               "task_id": TASK} for i in range(n)])


def _trainer(tmp_path, tok, lm, dataset, reward_funcs, max_completion_length=3, **kwargs):
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from trl import GRPOConfig, GRPOTrainer

    args = GRPOConfig(output_dir=str(tmp_path / "out"), per_device_train_batch_size=4, num_generations=4,
                      max_completion_length=max_completion_length, max_steps=2, learning_rate=0.05, beta=0.0,
                      logging_steps=1, report_to="none", save_strategy="no", use_cpu=True, seed=0,
                      generation_kwargs={"suppress_tokens": tiny_lm.answer_only(tok), "do_sample": True},
                      dataloader_num_workers=0)
    return GRPOTrainer(model=lm, reward_funcs=reward_funcs, args=args, train_dataset=dataset, processing_class=tok,
                       **kwargs)


def _weights(lm):
    return [p.detach().clone() for p in lm.parameters()]


def _changed(before, lm) -> bool:
    return any(not (a == b).all() for a, b in zip(before, lm.parameters()))


def test_grpo_two_steps_rewarded_by_the_real_judge(tmp_path):
    tok = tiny_lm.tokenizer()
    lm = tiny_lm.model(tok)
    scorer = Scorer(tasks=str(DATA / "tasks"), device="cpu", cache_dir=tmp_path / "cache", max_workers=2)
    reward = make_reward_func(scorer)
    calls = []

    def recorded(prompts=None, completions=None, **kwargs):
        rewards = reward(prompts=prompts, completions=completions, **kwargs)
        calls.append(([c[-1]["content"] for c in completions], rewards, [r.status for r in reward.last_results]))
        return rewards

    recorded.__name__ = "kernelgym_reward"
    trainer = _trainer(tmp_path, tok, lm, _dataset(2), [recorded])
    before = _weights(lm)
    try:
        trainer.train()
    finally:
        scorer.close()
    assert len(calls) == 2 and all(len(texts) == 4 for texts, _, _ in calls)
    for texts, rewards, statuses in calls:
        for text, r, status in zip(texts, rewards, statuses):
            answers = [a for a in (tiny_lm.GOOD_ANSWER, tiny_lm.WRONG_ANSWER) if a in text]
            last = max(answers, key=text.rindex) if answers else None  # the judge reads the last fenced block
            expected = {tiny_lm.GOOD_ANSWER: ("ok", CORRECT_ON_CPU), tiny_lm.WRONG_ANSWER: ("incorrect", 0.0),
                        None: ("compile_error", 0.0)}[last]
            assert (status, r) == (expected[0], pytest.approx(expected[1]))
    statuses = {s for _, _, ss in calls for s in ss}
    assert "ok" in statuses and statuses - {"ok"}  # varied rewards: a real gradient
    logged = [entry for entry in trainer.state.log_history if "reward" in entry]
    assert len(logged) == 2 and all("rewards/kernelgym_reward/mean" in e for e in logged)
    assert _changed(before, lm)


def test_grpo_multi_turn_rollout_feeds_the_feedback_back(tmp_path):
    tok = tiny_lm.tokenizer()
    lm = tiny_lm.model(tok, seed=1)
    dataset = _dataset(2)
    evaluator = InstantEvaluator()
    rollout = make_rollout_func(dataset, tasks=str(DATA / "tasks"), evaluator=evaluator, max_turns=2)
    outputs = []

    def recorded(prompts, trainer):
        out = rollout(prompts, trainer)
        outputs.append((out, rollout.last_episodes))
        return out

    trainer = _trainer(tmp_path, tok, lm, dataset, [rollout.reward_func], max_completion_length=2,
                       rollout_func=recorded)
    before = _weights(lm)
    trainer.train()

    assert len(outputs) == 2
    episodes = [e for _, eps in outputs for e in eps]
    assert len(episodes) == 8
    feedback_start = tok.convert_tokens_to_ids("<|user|>")
    for out, eps in outputs:
        assert len(out["completion_ids"]) == len(out["env_mask"]) == 4 and out["logprobs"] is None
        for ids, mask, e, reward, turns in zip(out["completion_ids"], out["env_mask"], eps, out["kernelgym_reward"],
                                               out["kernelgym_turns"]):
            assert len(ids) == len(mask) and turns == len(e["results"])
            solved = [r.status for r in e["results"]] .count("ok")
            assert solved <= 1 and (solved == 0 or e["results"][-1].status == "ok")  # ends at the first success
            assert turns == 2 or e["results"][-1].status == "ok"
            assert reward == pytest.approx(CORRECT_ON_CPU if solved else 0.0)
            # one feedback turn (masked out of the loss) between consecutive attempts
            feedback_tokens = [i for i, m in zip(ids, mask) if m == 0]
            assert feedback_tokens.count(feedback_start) == turns - 1
            if turns > 1:
                feedback = tok.decode(feedback_tokens, skip_special_tokens=True)
                assert "Feedback on your previous attempt" in feedback and "Attempt 2 of 2" in feedback
                assert [m["role"] for m in e["messages"][1:3]] == ["assistant", "user"]
    assert any(len(e["results"]) > 1 for e in episodes)  # some episodes were multi-turn
    assert {e["results"][-1].status for e in episodes} >= {"ok"}
    assert len(evaluator.policies) == sum(len(e["results"]) for e in episodes)
    logged = [entry for entry in trainer.state.log_history if "reward" in entry]
    assert len(logged) == 2 and all("rewards/kernelgym_episode_reward/mean" in e for e in logged)
    assert _changed(before, lm)
