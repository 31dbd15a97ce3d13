"""veRL 0.9 end to end, through veRL's own classes (no Ray cluster, no vLLM: neither runs on this CPU machine):

* the reward path veRL 0.9's trainer builds: ``RewardLoopWorker`` -> ``load_reward_manager`` -> the naive reward
  manager -> ``custom_reward_function`` (``path``/``name`` from the config) -> the real judge;
* the multi-turn agent loop: veRL's ``AgentLoopWorker`` loads ``kernelgym_agent`` from the shipped
  ``agent_loop_config_path`` and runs it against a tiny random model served in-process (in place of vLLM); its
  batches then drive two GRPO updates (veRL's ``compute_grpo_outcome_advantage``) of that model.
"""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

pytest.importorskip("verl", reason="the dev extra installs verl")  # a fallback only: CI installs it

import torch  # noqa: E402

import tiny_lm  # noqa: E402
from conftest import DATA, InstantEvaluator  # noqa: E402
from kernelgym.integrations import verl as kg_verl  # noqa: E402
from kernelgym.integrations.scorer import Scorer  # noqa: E402

TASK = "L1/1_scaled_relu"
CORRECT_ON_CPU = 0.3  # the default "speedup" reward of a correct kernel whose speed is not measured


def _config(model_dir, **overrides):
    from importlib.resources import files

    from omegaconf import OmegaConf

    config = OmegaConf.load(str(files("verl.trainer.config") / "_generated_ppo_trainer.yaml"))
    config.actor_rollout_ref.model.path = str(model_dir)
    for key, value in overrides.items():
        OmegaConf.update(config, key, value, force_add=True)
    return config


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    tok = tiny_lm.tokenizer()
    lm = tiny_lm.model(tok, seed=2)
    return tok, lm, tiny_lm.save(tok, lm, tmp_path_factory.mktemp("tiny-llama"))


def test_reward_loop_worker_scores_with_the_real_judge(tiny, tmp_path, monkeypatch):
    from verl import DataProto
    from verl.experimental.reward_loop.reward_loop import RewardLoopWorker

    monkeypatch.setenv("KERNELGYM_TASKS", str(DATA / "tasks"))
    monkeypatch.setenv("KERNELGYM_DEVICE", "cpu")
    monkeypatch.setenv("KERNELGYM_CACHE", str(tmp_path))
    monkeypatch.setattr(kg_verl, "_default", None)  # a scorer made from the variables above, then dropped
    tok, _, model_dir = tiny
    config = _config(model_dir, **{"reward.custom_reward_function.path": "pkg://kernelgym.integrations.verl",
                                   "reward.custom_reward_function.name": "compute_score"})
    worker = RewardLoopWorker(config)  # as veRL's RewardLoopManager makes it (there a Ray actor)

    texts = [f"Here it is.\n{tiny_lm.GOOD_ANSWER}", tiny_lm.WRONG_ANSWER, "no code"]
    prompt = tok("Write ModelNew.")["input_ids"]
    responses = [tok(t)["input_ids"] + [tok.eos_token_id] for t in texts]
    width = max(map(len, responses))
    data = DataProto.from_dict(
        tensors={"prompts": torch.tensor([prompt] * 3),
                 "responses": torch.tensor([r + [tok.pad_token_id] * (width - len(r)) for r in responses]),
                 "attention_mask": torch.tensor([[1] * len(prompt) + [1] * len(r) + [0] * (width - len(r))
                                                 for r in responses])},
        non_tensors={"data_source": np.array(["kernelgym"] * 3, dtype=object),
                     "reward_model": np.array([{"ground_truth": TASK, "style": "rule"}] * 3, dtype=object),
                     "extra_info": np.array([{"index": i} for i in range(3)], dtype=object)})
    try:
        out = worker.loop.run_until_complete(worker.compute_score_batch(data))  # the loop veRL bound it to
    finally:
        if kg_verl._default is not None:
            kg_verl._default.close()
    assert kg_verl._default.pool.device == "cpu"  # the scorer veRL's call made from KERNELGYM_*
    assert [o["reward_score"] for o in out] == [pytest.approx(CORRECT_ON_CPU), 0.0, 0.0]


class TinyServer:
    """veRL's LLM server client interface (``generate(request_id, *, prompt_ids, sampling_params) -> TokenOutput``)
    served by a local HF model, in place of vLLM/SGLang; answers only with whole programs or the end of turn."""

    def __init__(self, tok, lm, max_new_tokens=2):
        self.tok, self.lm, self.max_new_tokens = tok, lm, max_new_tokens
        self.calls = []

    async def generate(self, request_id, *, prompt_ids, sampling_params, **kwargs):
        from transformers import GenerationConfig
        from verl.workers.rollout.replica import TokenOutput

        self.calls.append((request_id, list(prompt_ids)))
        config = GenerationConfig(max_new_tokens=self.max_new_tokens, do_sample=True,
                                  temperature=sampling_params.get("temperature", 1.0),
                                  suppress_tokens=tiny_lm.answer_only(self.tok),
                                  pad_token_id=self.tok.pad_token_id, eos_token_id=self.tok.eos_token_id,
                                  output_scores=True, return_dict_in_generate=True)
        with torch.no_grad():
            out = self.lm.generate(torch.tensor([prompt_ids]), generation_config=config)
            ids = out.sequences[0, len(prompt_ids):].tolist()
            logprobs = [torch.log_softmax(s[0].float(), -1)[t].item() for s, t in zip(out.scores, ids)]
        if self.tok.eos_token_id in ids:
            cut = ids.index(self.tok.eos_token_id) + 1
            ids, logprobs = ids[:cut], logprobs[:cut]
        return TokenOutput(token_ids=ids, log_probs=logprobs if sampling_params.get("logprobs") else None)


def _batch(n_prompts, n_samples):
    from verl import DataProto

    rows = [(p, s) for p in range(n_prompts) for s in range(n_samples)]
    return DataProto.from_dict(non_tensors={
        "raw_prompt": np.array([[{"role": "user", "content": f"Write ModelNew for {TASK} (#{p})."}]
                                for p, _ in rows] + [None], dtype=object)[:-1],
        "agent_name": np.array(["kernelgym_agent"] * len(rows), dtype=object),
        "data_source": np.array(["kernelgym"] * len(rows), dtype=object),
        "reward_model": np.array([{"ground_truth": TASK, "style": "rule"}] * len(rows), dtype=object),
        "extra_info": np.array([{"index": p} for p, _ in rows], dtype=object),
        "index": np.array([p for p, _ in rows]),
        "uid": np.array([f"prompt-{p}" for p, _ in rows], dtype=object)})


def test_agent_loop_multi_turn_and_two_grpo_updates(tiny, monkeypatch):
    from verl.experimental.agent_loop.agent_loop import AgentLoopWorker
    from verl.trainer.ppo.core_algos import compute_grpo_outcome_advantage

    from kernelgym.integrations.verl_agent import AGENT_LOOP_CONFIG

    tok, lm, model_dir = tiny
    evaluator = InstantEvaluator()
    monkeypatch.setattr(kg_verl, "_default", Scorer(tasks=str(DATA / "tasks"), evaluator=evaluator))
    config = _config(model_dir, **{
        "actor_rollout_ref.rollout.agent.agent_loop_config_path": str(AGENT_LOOP_CONFIG),
        "actor_rollout_ref.rollout.multi_turn.max_assistant_turns": 2,
        "actor_rollout_ref.rollout.prompt_length": 64,
        "actor_rollout_ref.rollout.response_length": 256,
        "actor_rollout_ref.rollout.name": "vllm"})
    server = TinyServer(tok, lm)
    torch.manual_seed(0)  # the sampling below
    worker = AgentLoopWorker(config, llm_client=server)  # as veRL's AgentLoopManager makes it (there a Ray actor)
    optimizer = torch.optim.AdamW(lm.parameters(), lr=0.05)
    before = [p.detach().clone() for p in lm.parameters()]
    feedback_marker = tok.convert_tokens_to_ids("<|user|>")
    all_scores, multi_turn = [], 0
    for step in range(2):
        lm.eval()
        out = asyncio.run(worker.generate_sequences(_batch(n_prompts=2, n_samples=4)))
        batch, extra = out.batch, out.non_tensor_batch
        assert batch["responses"].shape == (8, 256) and batch["prompts"].shape == (8, 64)
        scores = batch["rm_scores"].sum(-1).tolist()
        all_scores += scores
        for i in range(8):
            statuses = list(extra["kernelgym_status"][i])
            turn_scores = list(extra["turn_scores"][i])
            assert len(statuses) == len(turn_scores) == extra["attempts"][i] and 1 <= len(statuses) <= 2
            assert statuses.count("ok") <= 1 and (statuses[-1] == "ok" or len(statuses) == 2)
            assert scores[i] == pytest.approx(max(turn_scores))
            assert scores[i] == pytest.approx(CORRECT_ON_CPU if "ok" in statuses else 0.0)
            # the feedback turn sits in the response, masked out of the loss
            response = batch["responses"][i][batch["attention_mask"][i, 64:].bool()].tolist()
            mask = batch["response_mask"][i][: len(response)].tolist()
            feedback = [t for t, m in zip(response, mask) if m == 0]
            assert feedback.count(feedback_marker) == len(statuses) - 1
            if len(statuses) == 2:
                multi_turn += 1
                text = tok.decode(feedback, skip_special_tokens=True)
                assert "Status: incorrect" in text and "Attempt 2 of 2" in text
            assert extra["__num_turns__"][i] == 2 * len(statuses)
        assert set(out.meta_info["reward_extra_keys"]) >= {"correct", "attempts", "best_speedup"}

        # one GRPO update of the policy with veRL's advantage estimator
        advantages, _ = compute_grpo_outcome_advantage(batch["rm_scores"], batch["response_mask"],
                                                       index=extra["uid"])
        lm.train()
        logits = lm(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).logits
        logp = torch.log_softmax(logits[:, 63:-1].float(), -1).gather(-1, batch["responses"].unsqueeze(-1))[..., 0]
        mask = batch["response_mask"].float()
        loss = -(advantages * logp * mask).sum() / mask.sum().clamp(min=1)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    assert multi_turn > 0 and CORRECT_ON_CPU in [pytest.approx(s) for s in all_scores] and 0.0 in all_scores
    assert len(evaluator.policies) == len(server.calls)  # one evaluation per generation
    assert any(not torch.equal(a, b) for a, b in zip(before, lm.parameters()))
