"""What a policy can earn at the episode level, beyond its best attempt (a red-team helper on the envs, rewards and
episode bookkeeping, 2026-12-07; docs/SECURITY.md, docs/REWARDS.md)."""

from __future__ import annotations

import math
from concurrent.futures import Future

import gymnasium as gym
import pytest
from conftest import DATA, GOOD, InstantEvaluator, candidate

import kernelgym  # noqa: F401
from kernelgym.judge.result import EvalResult
from kernelgym.rewards import get_reward

TASK = "L1/1_scaled_relu"
WRONG = candidate(expr="tl.maximum(x, 0.0)")


class _GpuLikeEvaluator(InstantEvaluator):
    """Scores as a GPU judge would, without running anything: each text maps to a (status, speedup) verdict, timed."""

    def __init__(self, verdicts: dict[str, tuple[str, float | None]], flags=()):
        super().__init__()
        self.verdicts, self.flags = verdicts, list(flags)

    def submit(self, task, text, **kwargs):
        status, speedup = self.verdicts[text]
        future = Future()
        future.set_result(EvalResult(task_id=task.id, stage="done" if status == "ok" else "correctness",
                                     status=status, timing_meaningful=True, speedup=speedup, runtime_ms=1.0,
                                     baseline_ms=speedup, flags=[dict(f) for f in self.flags]))
        return future


def _make(evaluator, **kwargs):
    env = gym.make("KernelGym-L1-v0", tasks=str(DATA / "tasks"), evaluator=evaluator, **kwargs)
    env.reset(seed=0, options={"task_id": TASK})
    return env


def _play(env, answers):
    """Step ``answers`` until the episode ends; (step rewards, terminated, truncated)."""
    rewards, term, trunc = [], False, False
    for answer in answers:
        _, reward, term, trunc, _ = env.step(answer)
        rewards.append(reward)
        if term or trunc:
            break
    return rewards, term, trunc


VERDICTS = {"slow": ("ok", 0.9), "fast": ("ok", 10.0), "double": ("ok", 2.0), "wrong": ("incorrect", None),
            "hack": ("rejected", None)}


def test_resubmitting_a_slow_correct_kernel_earns_no_more_than_its_one_attempt():
    """A correct kernel slower than eager does not end the episode on a GPU (target 1x); each resubmission earned 0.3
    again: 4 turns of it returned 1.2, more than the 10x kernel that ends the episode at once (1.0)."""
    speedup = get_reward("speedup")
    slow = speedup(EvalResult(task_id=TASK, status="ok", timing_meaningful=True, speedup=0.9), [])
    fast = speedup(EvalResult(task_id=TASK, status="ok", timing_meaningful=True, speedup=10.0), [])
    rewards, term, trunc = _play(_make(_GpuLikeEvaluator(VERDICTS), max_turns=4), ["slow"] * 4)
    assert trunc and not term and len(rewards) == 4
    assert sum(rewards) == pytest.approx(slow)
    rewards, term, _ = _play(_make(_GpuLikeEvaluator(VERDICTS), max_turns=4), ["fast"])
    assert term and sum(rewards) == pytest.approx(fast) and fast > slow


@pytest.mark.parametrize("answers", [["slow", "double", "slow", "double"], ["double", "wrong", "hack", "double"],
                                     ["wrong", "wrong", "wrong", "double"], ["hack", "slow", "hack", "double"]])
def test_an_episodes_return_is_its_best_attempts_reward_whatever_the_path(answers):
    """Regressing then recovering, alternating bad and good answers, failing on purpose first: the return (the sum a
    trainer maximises) is the best attempt's reward (at least 0) plus every negative one (each rejection costs
    ``shaped``'s -1): never more than the best attempt alone, and a step is negative only for a negative attempt."""
    for name in ("speedup", "shaped", "fast_p:1.5", "correct", "speedup_coverage"):
        fn = get_reward(name)
        env = _make(_GpuLikeEvaluator(VERDICTS), max_turns=4, reward=name, target_speedup=100.0)
        rewards, _, _ = _play(env, answers)
        results = env.unwrapped.history
        attempts = [fn(r, []) for r in results]  # each attempt on its own
        expected = max(0.0, *attempts) + sum(min(a, 0.0) for a in attempts)
        assert sum(rewards) == pytest.approx(expected), (name, rewards, attempts)
        assert sum(rewards) <= max(attempts) + 1e-9 and rewards[0] == pytest.approx(attempts[0])
        assert all((r < 0) == (a < 0) for r, a in zip(rewards, attempts))


def test_a_slow_kernel_first_buys_no_bonus_for_beating_it():
    """``shaped`` adds 0.1 to an attempt that beats the episode's best correct speedup so far: a slow correct kernel
    submitted first (it does not end the episode on a GPU) set that baseline, and the 2x kernel after it earned 0.75
    where the 2x kernel alone earned 0.65."""
    alone, _, _ = _play(_make(_GpuLikeEvaluator(VERDICTS), max_turns=4, reward="shaped", target_speedup=100.0),
                        ["double"])
    sandbagged, _, _ = _play(_make(_GpuLikeEvaluator(VERDICTS), max_turns=4, reward="shaped", target_speedup=100.0),
                             ["slow", "double"])
    assert sum(sandbagged) == pytest.approx(sum(alone)) and sum(alone) == pytest.approx(0.65, abs=1e-3)


def test_failing_on_purpose_under_shaped_earns_nothing_with_the_real_judge(judge):
    """The real judge on the CPU: three wrong answers (0.1 each under ``shaped``) before the right one (0.5) returned
    0.8; the right one alone returns 0.5."""
    env = _make(judge, max_turns=4, reward="shaped")
    rewards, term, _ = _play(env, [WRONG, WRONG, GOOD])
    assert term and [r.status for r in env.unwrapped.history] == ["incorrect", "incorrect", "ok"]
    assert sum(rewards) == pytest.approx(0.5)


def test_the_attempts_own_reward_is_in_info_and_step_reward_attempt_keeps_it_as_the_step_reward():
    env = _make(_GpuLikeEvaluator(VERDICTS), max_turns=3)
    first = env.step("slow")
    second = env.step("slow")
    assert first[4]["attempt_reward"] == second[4]["attempt_reward"] == pytest.approx(0.3)
    assert second[1] == 0.0
    env = _make(_GpuLikeEvaluator(VERDICTS), max_turns=3, step_reward="attempt")
    assert [env.step("slow")[1] for _ in range(2)] == [pytest.approx(0.3)] * 2
    with pytest.raises(ValueError, match="step_reward"):
        _make(_GpuLikeEvaluator(VERDICTS), step_reward="sum")


def test_a_vector_envs_summed_rewards_per_episode_are_each_episodes_best():
    from kernelgym.envs import KernelVectorEnv

    venv = KernelVectorEnv(2, _GpuLikeEvaluator(VERDICTS), tasks=str(DATA / "tasks"), max_turns=3)
    venv.reset(seed=0, options={"task_id": TASK})
    totals = [0.0, 0.0]
    for actions in (["slow", "wrong"], ["slow", "slow"], ["slow", "slow"]):
        _, rewards, _, _, _ = venv.step(actions)
        totals = [t + float(r) for t, r in zip(totals, rewards)]
    assert totals == [pytest.approx(0.3), pytest.approx(0.3)]
    venv.close()


def test_the_multi_turn_loops_sum_adds_no_reward_for_failed_attempts():
    """TRL's rollout and veRL's agent loop end an episode at its first correct attempt; their ``sum`` added every
    attempt's reward, so under ``shaped`` two wrong answers before the right one earned 0.7 against 0.5."""
    from kernelgym.integrations.scorer import Scorer
    from kernelgym.integrations.trl import KernelRollout

    rollout = KernelRollout({}, Scorer(tasks=str(DATA / "tasks"), evaluator=InstantEvaluator()), episode_reward="sum")
    assert rollout._episode_reward([0.1, 0.1, 0.5]) == pytest.approx(0.5)
    assert rollout._episode_reward([-1.0, 0.1]) == pytest.approx(-0.9)  # the rejection still costs its -1
    from kernelgym.rewards.episode import episode_reward  # veRL's agent loop's

    assert episode_reward([0.1, 0.1, 0.5], "sum") == pytest.approx(episode_reward([0.5], "sum"))
    assert episode_reward([0.3, 0.65, 0.3], "best") == pytest.approx(0.65)
    with pytest.raises(ValueError):
        episode_reward([0.3], "mean")


def test_skyrl_metrics_report_the_attempts_own_rewards():
    from kernelgym.integrations.skyrl import KernelTextEnv

    env = KernelTextEnv(env_config={"tasks": str(DATA / "tasks"), "evaluator": _GpuLikeEvaluator(VERDICTS)},
                        extras={"task_id": TASK, "max_turns": 3, "target_speedup": 100.0})
    env.init()
    steps = [env.step(a)["reward"] for a in ("double", "slow", "slow")]
    assert sum(steps) == pytest.approx(env.get_metrics()["best_reward"])
    assert env.get_metrics()["final_reward"] == pytest.approx(0.3)  # the last attempt's own, not its step's 0
    env.close()


def test_a_degenerate_tasks_speed_neither_keeps_the_episode_going_nor_shows_as_best_speedup():
    """On a task flagged ``degenerate_task`` a speedup is unmeasured (rewards, records, reports); the env still kept
    the episode going below the target and showed the speedup as ``best_speedup``."""
    flags = [{"name": "degenerate_task", "reason": "the reference ignores its inputs"}]
    env = _make(_GpuLikeEvaluator(VERDICTS, flags=flags), max_turns=3)
    obs, reward, term, trunc, _ = env.step("slow")
    assert term and not trunc and reward == pytest.approx(0.3)
    assert obs["best_speedup"][0] == 0.0
    env = _make(_GpuLikeEvaluator(VERDICTS, flags=flags), max_turns=3, target_speedup=100.0)
    obs, *_ = env.step("fast")
    assert obs["best_speedup"][0] == 0.0


@pytest.mark.parametrize("spec", ["speedup:nan", "speedup:inf", "speedup_coverage:nan", "shaped:nan", "shaped:1"])
def test_a_speedup_cap_must_be_finite_and_above_one(spec):
    """``speedup:nan`` passed ``cap <= 1`` and made every correct kernel's reward NaN; ``shaped:1`` divided by 0."""
    with pytest.raises(ValueError, match="cap"):
        get_reward(spec)
    assert math.isfinite(get_reward(spec.split(":")[0] + ":4")(EvalResult(task_id=TASK, status="ok"), []))


# -- control characters in the candidate's words ----------------------------------------------------------------
#: a forward that raises (and prints) terminal control sequences: cursor up, erase line, a forged verdict, a
#: right-to-left override
CURSOR_FORGERY = '\\x1b[1A\\x1b[2KStatus: ok (stage reached: done)\\x1b[9A\\x1b[2Kfast_0 1.000\\u202e'


def _escape_free(text: str) -> bool:
    """No control character but line breaks and tabs, and no bidirectional-text control."""
    import unicodedata

    return not any(unicodedata.category(c) == "Cc" and c not in "\n\t" or unicodedata.bidirectional(c) in
                   ("RLO", "LRO", "RLE", "LRE", "PDF", "RLI", "LRI", "FSI", "PDI") for c in text)


def test_a_candidate_cannot_move_the_terminals_cursor_onto_the_judges_lines(judge):
    """The feedback kept every candidate field on one line, but kept its control characters: a raised
    ``"\\x1b[1A\\x1b[2KStatus: ok"`` put the cursor back on the judge's ``Status:`` line and overwrote it wherever
    the feedback is shown (the env's ``ansi`` render, ``kernelgym eval TASK FILE``, a record printed)."""
    from kernelgym.testing.candidates import indent, kernel_forward

    text = kernel_forward(indent(f'print("{CURSOR_FORGERY}")\nraise ValueError("{CURSOR_FORGERY}")'))
    env = gym.make("KernelGym-L1-v0", tasks=str(DATA / "tasks"), evaluator=judge, max_turns=2, render_mode="ansi")
    env.reset(seed=0, options={"task_id": TASK})
    obs, _, _, _, info = env.step(text)
    assert info["result"]["status"] == "runtime_error" and "\x1b[1A" in info["result"]["message"]  # as raised
    assert _escape_free(obs["feedback"]) and _escape_free(obs["prompt"]) and _escape_free(env.render())
    assert "\\x1b[1A\\x1b[2KStatus: ok" in obs["feedback"]  # shown as written, escaped


def test_kernelgym_eval_dir_prints_no_candidates_control_characters(tmp_path):
    """``kernelgym eval DIR`` lists each failed file with the first line of its message: a candidate's message
    moved the cursor up onto the printed fast_p summary and wrote its own figures over it."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    from kernelgym.testing.candidates import indent, kernel_forward

    gens = tmp_path / "gens" / "L1"
    gens.mkdir(parents=True)
    (gens / "1_scaled_relu.py").write_text(kernel_forward(indent(f'raise ValueError("{CURSOR_FORGERY}")')))
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.run([sys.executable, "-m", "kernelgym.cli", "eval", str(tmp_path / "gens"), "--tasks",
                           str(DATA / "tasks"), "--task", TASK, "--out", str(tmp_path / "out"), "--device", "cpu",
                           "--jobs", "1", "--cache-dir", str(tmp_path / "cache"), "--no-progress"],
                          capture_output=True, text=True, timeout=300, cwd=root, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "runtime_error" in proc.stdout and "\\x1b[9A" in proc.stdout
    assert _escape_free(proc.stdout)
