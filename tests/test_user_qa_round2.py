"""A user's round 2: an RL researcher wiring kernelgym into TRL's GRPO and veRL, someone collecting an offline
dataset and reading it back with pyarrow / pandas / ``datasets``, someone on the vector env and a Ray pool. Each test
fails on the code before its fix: the docs followed literally gave a traceback, lost work or a silently wrong
result."""

from __future__ import annotations

import asyncio
import json
import pickle
import types

import numpy as np
import pytest

from conftest import GOOD, InstantEvaluator
from kernelgym import cli
from kernelgym.envs import KernelEnv
from kernelgym.envs.vector import KernelVectorEnv
from kernelgym.judge.result import EvalResult
from kernelgym.tasks import load_tasks
from kernelgym.testing.candidates import TEST_TASKS

TASK = "L1/1_scaled_relu"


class TimedEvaluator(InstantEvaluator):
    """An Evaluator whose verdicts are read off the text, as a GPU's would be: ``"speed=X"`` is correct with a
    meaningful speedup X, ``"judge-fault"`` a crash flagged ``judge_error``, anything else incorrect. Adding
    ``"degenerate"`` flags the task ``degenerate_task``."""

    def evaluate(self, task, text, backend="triton", profile="quick", torch_policy="partial"):
        self.policies.append(torch_policy)
        result = EvalResult(task_id=task.id, backend=backend, stage="done", status="incorrect", message="timed",
                            torch_policy=torch_policy)
        if "judge-fault" in text:
            result.status, result.message = "crashed", "the judge ran out of memory"
            result.add_flag("judge_error", "MemoryError in the judge")
        elif "speed=" in text:
            result.status, result.timing_meaningful = "ok", True
            result.speedup = float(text.split("speed=")[1].split()[0])
            if "degenerate" in text:
                result.add_flag("degenerate_task", "the reference ignores its inputs")
        return result


# -- collecting a dataset ---------------------------------------------------------------------------------------
def test_collect_out_ending_in_parquet_is_refused_before_anything_is_written(tmp_path, capsys):
    """``--out data/l1.parquet``: the episodes were appended to that file as JSONL, then the Parquet conversion
    (``<stem>.parquet``, the same file) replaced it; a ``--resume`` read the Parquet bytes as hundreds of damaged
    lines, moved them to ``.damaged`` and collected everything again. Now refused up front."""
    from kernelgym.data import collect

    out = tmp_path / "l1.parquet"
    with pytest.raises(ValueError, match=r"names a Parquet file.*l1\.jsonl"):
        collect(lambda obs: GOOD, load_tasks(TEST_TASKS), out, evaluator=InstantEvaluator(), progress=False)
    assert not out.exists()
    policy = tmp_path / "policy.py"
    policy.write_text("def answer(observation):\n    return ''\n")
    code = cli.main(["collect", "--out", str(out), "--tasks", str(TEST_TASKS), "--policy", f"{policy}:answer",
                     "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("kernelgym: error:") and "Parquet" in err, err
    assert not out.exists()


def test_to_parquet_never_overwrites_its_own_source(tmp_path, capsys):
    """``kernelgym collect --to-parquet --out x.parquet`` (a JSONL file with that name) replaced the episodes with
    their Parquet copy."""
    from kernelgym.data import collect

    jsonl = tmp_path / "eps.jsonl"
    collect(lambda obs: GOOD, load_tasks(TEST_TASKS), jsonl, evaluator=InstantEvaluator(), progress=False,
            parquet=False)
    named = tmp_path / "eps.parquet"
    named.write_bytes(jsonl.read_bytes())
    code = cli.main(["collect", "--out", str(named), "--to-parquet"])
    err = capsys.readouterr().err
    assert code == 2 and "overwritten by its own Parquet file" in err, err
    assert named.read_bytes() == jsonl.read_bytes()


def test_an_episode_the_judge_failed_is_not_recorded_and_resume_plays_it_again(tmp_path):
    """An attempt whose verdict was the judge's own failure (``judge_fault``: README says "drop the sample") was
    written into the dataset as an ordinary crashed episode, and ``--resume`` never replayed it."""
    from kernelgym.data import collect, read_rows

    out = tmp_path / "eps.jsonl"
    tasks = load_tasks(TEST_TASKS)
    with pytest.warns(RuntimeWarning, match="the judge failed"):
        stats = collect(lambda obs: "judge-fault", tasks, out, max_turns=3, evaluator=TimedEvaluator(),
                        progress=False, parquet=False)
    assert stats.failed == 1 and stats.finished == 0 and "JudgeFault" in stats.errors[0]
    assert read_rows(out).rows == []
    evaluator = TimedEvaluator()
    stats = collect(lambda obs: "speed=2", tasks, out, max_turns=3, evaluator=evaluator, progress=False,
                    parquet=False, resume=True)
    rows = read_rows(out).rows
    assert stats.finished == 1 and [r["statuses"] for r in rows] == [["ok"]] and rows[0]["best_speedup"] == 2.0


def test_the_jsonl_file_loads_with_the_parquet_files_types(tmp_path):
    """DATASETS.md said ``datasets.load_dataset("json" | "parquet")`` load the files "with one fixed schema": from
    JSONL ``best_speedup`` (null on the CPU) came back as type ``null`` and ``created_at`` as a timestamp.
    ``hf_features()`` gives the Parquet file's types."""
    datasets = pytest.importorskip("datasets")
    from kernelgym.data import collect
    from kernelgym.data.records import hf_features

    out = tmp_path / "eps.jsonl"
    stats = collect(lambda obs: GOOD, load_tasks(TEST_TASKS), out, samples=2, evaluator=InstantEvaluator(),
                    progress=False)
    inferred = datasets.load_dataset("json", data_files=str(out), split="train", cache_dir=str(tmp_path / "c1"))
    parquet = datasets.load_dataset("parquet", data_files=str(stats.parquet), split="train",
                                    cache_dir=str(tmp_path / "c2"))
    assert inferred.features != parquet.features  # what the docs now say: a JSON reader infers its own types
    typed = datasets.load_dataset("json", data_files=str(out), split="train", features=hf_features(),
                                  cache_dir=str(tmp_path / "c3"))
    assert typed.features == parquet.features
    assert typed["best_speedup"] == [None, None] and typed["correct"] == [True, True]
    assert json.loads(typed[0]["results"][0])["status"] == "ok"


# -- TRL and veRL -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("make", ["reward", "async", "rollout", "verl"])
def test_the_adapter_factories_refuse_what_is_not_a_scorer_when_made(make):
    """``make_reward_func("speedup")`` (the reward name as the first, positional argument) was accepted and the
    trainer's first batch failed with "'str' object has no attribute 'evaluate_many'"; a scorer given with settings
    (``backend="cuda"``) silently ignored them."""
    from kernelgym.integrations import trl, verl
    from kernelgym.integrations.scorer import Scorer

    rows = [{"prompt": "p", "task_id": TASK}]
    factory = {"reward": trl.make_reward_func, "async": trl.make_async_reward_func,
               "rollout": lambda s, **kw: trl.make_rollout_func(rows, s, **kw),
               "verl": verl.make_compute_score}[make]
    with pytest.raises(TypeError, match="scorer must be a kernelgym.integrations.scorer.Scorer, got str"):
        factory("speedup")
    scorer = Scorer(tasks=str(TEST_TASKS), evaluator=InstantEvaluator())
    with pytest.raises(TypeError, match="backend would be ignored"):
        factory(scorer, backend="cuda")
    assert factory(scorer) is not None


def test_verl_compute_score_reads_the_task_id_where_the_agent_loop_does():
    """The agent loop takes the task id from ``reward_model.ground_truth`` or ``extra_info.task_id``;
    ``compute_score`` read only the former and scored a row with the latter as the unknown task ``'None'``."""
    from kernelgym.integrations.scorer import Scorer
    from kernelgym.integrations.verl import make_compute_score

    compute_score = make_compute_score(Scorer(tasks=str(TEST_TASKS), evaluator=InstantEvaluator()))
    assert compute_score(data_source="kernelgym", solution_str=GOOD, ground_truth=None,
                         extra_info={"task_id": TASK}) == pytest.approx(0.3)
    with pytest.raises(ValueError, match="no task id: set reward_model.ground_truth"):
        compute_score(data_source="kernelgym", solution_str=GOOD, ground_truth=None, extra_info={"index": 0})


class _Tokenizer:
    """Just enough of a tokenizer for KernelRollout: a message renders as its index, answers decode from a table."""

    eos_token_id = 0
    pad_token_id = 0

    def __init__(self, answers):
        self.answers = answers

    def apply_chat_template(self, messages, add_generation_prompt=False, tokenize=True, return_dict=False):
        return [7] * len(messages) + ([8] if add_generation_prompt else [])

    def batch_decode(self, ids, skip_special_tokens=True):
        return [self.answers[row[0]] for row in ids]


def _rollout(monkeypatch, answers: list[str], **kwargs):
    """One TRL multi-turn episode whose attempts are ``answers`` in order; returns TRL's outputs and the rollout."""
    from kernelgym.integrations.trl import KernelRollout, make_rollout_func

    turn = iter(range(len(answers)))
    monkeypatch.setattr(KernelRollout, "_generate",
                        staticmethod(lambda trainer, tok, contexts: ([[next(turn) + 100, 0] for _ in contexts],
                                                                     [None] * len(contexts))))
    tokenizer = _Tokenizer({100 + i: a for i, a in enumerate(answers)})
    rollout = make_rollout_func([{"prompt": "write it", "task_id": TASK}], tasks=str(TEST_TASKS),
                                evaluator=TimedEvaluator(), max_turns=len(answers), **kwargs)
    trainer = types.SimpleNamespace(processing_class=tokenizer, use_vllm=False)
    return rollout(["write it"], trainer), rollout


def test_trl_rollout_goes_on_after_a_correct_attempt_below_the_target_speedup(monkeypatch):
    """INTEGRATIONS.md: "the episode ends at a correct attempt (on a GPU: one reaching target_speedup)", as
    KernelEnv's and SkyRL's do. The TRL loop ended at any correct attempt: a kernel slower than eager ended the
    episode and the model was never asked to make it faster."""
    out, rollout = _rollout(monkeypatch, ["speed=0.5", "speed=2"], reward="speedup")
    assert out["kernelgym_turns"] == [2] and out["kernelgym_correct"] == [True]
    assert [r.speedup for r in rollout.last_episodes[0]["results"]] == [0.5, 2.0]
    assert out["kernelgym_reward"] == [pytest.approx(0.3 + 0.7 * np.log2(2) / np.log2(10))]
    out, _ = _rollout(monkeypatch, ["speed=0.5", "speed=2"], target_speedup=0.4)
    assert out["kernelgym_turns"] == [1]  # the target reached: the episode ends there
    with pytest.raises(ValueError, match="target_speedup"):
        _rollout(monkeypatch, ["x"], target_speedup=float("nan"))


def test_trl_rollout_scores_each_attempt_on_its_own(monkeypatch):
    """REWARDS.md: the multi-turn loops aggregate "the attempts' own rewards" (KernelEnv scores an attempt with an
    empty history: ``shaped``'s +0.1 for beating the episode's best paid for a slow first attempt). The TRL loop
    passed the history: a slow kernel first, then the same 2x kernel, earned 0.75 where the 2x kernel alone earns
    0.65."""
    alone = 0.5 + 0.5 * np.log2(2) / np.log2(10)
    out, rollout = _rollout(monkeypatch, ["speed=0.5", "speed=2"], reward="shaped")
    assert rollout.last_episodes[0]["rewards"] == [pytest.approx(0.5), pytest.approx(alone)]
    assert out["kernelgym_reward"] == [pytest.approx(alone)]


def _agent_loop(evaluator, max_turns: int, reward: str = "speedup"):
    """veRL's KernelAgentLoop without veRL's worker: the server, tokenizer and token merges replaced by stand-ins."""
    verl_agent = pytest.importorskip("kernelgym.integrations.verl_agent")
    from kernelgym.integrations.scorer import Scorer

    loop = verl_agent.KernelAgentLoop.__new__(verl_agent.KernelAgentLoop)
    loop.scorer = Scorer(tasks=str(TEST_TASKS), evaluator=evaluator, reward=reward)
    loop.max_turns, loop.response_length, loop.episode_reward, loop.target_speedup = max_turns, 10_000, "best", 1.0
    answers = iter(evaluator.answers)

    async def generate(request_id, prompt_ids, sampling_params):
        return types.SimpleNamespace(token_ids=[len(prompt_ids) + 1], log_probs=None)

    async def initial(messages):
        return [1]

    async def merge_assistant(runtime_ids, token_ids, mask, logprobs, assistant_logprobs=None):
        return types.SimpleNamespace(token_ids=runtime_ids + token_ids), mask + [1] * len(token_ids), None

    async def merge_context(previous, messages, runtime_ids, mask, logprobs):
        return types.SimpleNamespace(token_ids=runtime_ids + [5]), mask + [0], None

    loop.server_manager = types.SimpleNamespace(generate=generate)
    loop.tokenizer = types.SimpleNamespace(decode=lambda ids, skip_special_tokens=True: next(answers))
    loop.ct_build_initial_tokens, loop.ct_merge_assistant_token = initial, merge_assistant
    loop.ct_merge_context_msg = merge_context
    return loop


def test_verl_agent_loop_goes_on_below_the_target_and_logs_only_measured_speedups():
    """The veRL agent loop ended at any correct attempt (INTEGRATIONS.md: at one reaching ``target_speedup``), passed
    the history to the reward (``shaped``'s bonus for a slow first attempt), and logged ``best_speedup`` from a
    ``degenerate_task`` result, whose speed every other report counts as unmeasured."""
    evaluator = TimedEvaluator()
    evaluator.answers = ["speed=0.5", "speed=2"]
    loop = _agent_loop(evaluator, max_turns=3, reward="shaped")

    async def run(loop):
        loop.loop = asyncio.get_running_loop()
        return await loop.run({}, raw_prompt=[{"role": "user", "content": "write it"}],
                              reward_model={"ground_truth": TASK})

    out = asyncio.run(run(loop))
    alone = 0.5 + 0.5 * np.log2(2) / np.log2(10)
    assert out.extra_fields["kernelgym_status"] == ["ok", "ok"]
    assert out.extra_fields["turn_scores"] == [pytest.approx(0.5), pytest.approx(alone)]
    assert out.reward_score == pytest.approx(alone) and out.extra_fields["reward_extra_info"]["best_speedup"] == 2.0
    evaluator.answers = ["speed=50 degenerate"]
    out = asyncio.run(run(_agent_loop(evaluator, max_turns=3)))
    assert out.extra_fields["kernelgym_status"] == ["ok"]  # a degenerate task's correct attempt ends the episode
    assert out.extra_fields["reward_extra_info"]["best_speedup"] == 0.0


# -- the env for Ray: pickling, seeds ---------------------------------------------------------------------------
def test_an_env_pickles_and_its_copy_goes_on_where_it_was():
    """Sending an env to a Ray worker or a multiprocessing pool: ``pickle.dumps(env)`` failed with "Can't pickle
    local object 'speedup_reward.<locals>.reward'" for every env, and with "cannot pickle '_thread.lock' object"
    (cloudpickle too) for one that made its own evaluator."""
    import gymnasium as gym

    env = KernelEnv(tasks=str(TEST_TASKS), evaluator=InstantEvaluator(), max_turns=3, reward="shaped")
    env.reset(seed=3)
    env.step("not yet")
    copy = pickle.loads(pickle.dumps(env))
    assert [r.status for r in copy.history] == ["incorrect"]
    _, reward, terminated, _, info = copy.step(GOOD)
    assert terminated and info["turn"] == 2 and reward == pytest.approx(0.4)  # 0.5 improves on 0.1
    made = gym.make("KernelGym-L1-v0", evaluator=InstantEvaluator())
    assert pickle.loads(pickle.dumps(made)).reset(seed=0)[1]["task_id"] == made.reset(seed=0)[1]["task_id"]

    own = KernelEnv(tasks=str(TEST_TASKS), device="cpu", prestart_workers=False)
    try:
        copy = pickle.loads(pickle.dumps(own))
        assert copy.evaluator is not own.evaluator and copy._owned_evaluator is copy.evaluator
        assert copy.evaluator.device == "cpu"
        copy.close()
    finally:
        own.close()


def test_vector_env_seeds_of_numpy_types_and_bad_seeds():
    """``reset(seed=np.int64(3))`` (a seed drawn from numpy) failed inside Gymnasium; a numpy array of seeds was
    taken as one seed and added to elementwise; ``seed="0"`` said "can only concatenate str (not "int") to
    str"."""
    venv = KernelVectorEnv(3, InstantEvaluator(), levels=[1])
    try:
        by_list, _ = venv.reset(seed=[3, 4, 5])
        by_int, _ = venv.reset(seed=np.int64(3))
        by_array, _ = venv.reset(seed=np.array([3, 4, 5]))
        assert by_list["task_id"] == by_int["task_id"] == by_array["task_id"]
        for bad in ("0", 1.5, True):
            with pytest.raises(TypeError, match="seed must be"):
                venv.reset(seed=bad)
        with pytest.raises(TypeError, match=r"seed\[1\] must be an int"):
            venv.reset(seed=[1, "2", 3])
        single = KernelEnv(evaluator=InstantEvaluator(), levels=[1])
        assert single.reset(seed=np.int64(3))[1]["task_id"] == by_list["task_id"][0]
    finally:
        venv.close()
