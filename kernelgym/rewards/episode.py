"""A multi-turn episode's rewards from its attempts' rewards, so that the number of attempts earns nothing.

Every reward function scores one attempt (``reward(result, history)``). An episode has several attempts, and
its return is what a trainer maximises: the sum of its step rewards (KernelEnv, SkyRL, RLlib, a collected
record's ``episode_return``) or an aggregate of its attempts' rewards (the TRL and veRL multi-turn loops). When
each step paid its attempt's own reward, the sum grew with the number of attempts the policy chose to make: a
correct kernel slower than eager (speedup reward 0.3) submitted again and again until ``max_turns`` earned
``0.3 * max_turns``, more than a 10x kernel that ends the episode at once (1.0); under ``shaped`` three wrong
answers (0.1 each) before the right one earned 0.8 where the right one alone earned 0.5 (a red-team helper,
2026-12-07). A policy maximising that return learns to stall and to fail on purpose.

The step reward is now the attempt's *improvement* on the best attempt so far (a potential-based shaping whose
potential is the best attempt's reward, from 0), and a negative attempt reward (``shaped``'s -1 for a rejected
attempt, a custom reward's cost per failure) is charged in full each time: a step earns ``max(0, reward - best)``
for a reward ``>= 0`` (``best``: the best of the earlier ones, at least 0) and ``reward`` itself below 0. An
episode's return is its best attempt's reward (0 if none was positive) plus every negative one's: it never grows
with the number of attempts, their order, repeats or regressions, and each rejected attempt still costs what the
reward says (an improvement alone would make a rejection after a correct attempt free).
"""

from __future__ import annotations

import math
from typing import Iterable

#: how the env turns an attempt's reward into its step reward (``KernelEnv(step_reward=...)``)
STEP_REWARDS = ("improvement", "attempt")
#: how the TRL and veRL multi-turn loops turn the attempts' rewards into the episode's reward
EPISODE_REWARDS = ("best", "last", "sum")


def improvement(attempt: float, best: float | None) -> float:
    """The step reward of an attempt earning ``attempt`` after attempts whose best earned ``best`` (``None``: this is
    the first): ``attempt`` itself when it is below 0, else ``max(0, attempt - max(best, 0))``. A non-finite
    ``attempt`` (a custom reward's NaN) is passed on as it is."""
    if not math.isfinite(attempt) or attempt < 0:
        return attempt
    return max(attempt - max(best or 0.0, 0.0), 0.0)


def best_of(attempt: float, best: float | None) -> float | None:
    """The best attempt's reward after this attempt (a non-finite reward never becomes the best)."""
    if not math.isfinite(attempt):
        return best
    return attempt if best is None else max(best, attempt)


def step_rewards(attempts: Iterable[float]) -> list[float]:
    """The step rewards of an episode whose attempts earned ``attempts`` (in order): they sum to the best one (0
    if none is positive) plus every negative one."""
    out, best = [], None
    for attempt in attempts:
        attempt = float(attempt)
        out.append(improvement(attempt, best))
        best = best_of(attempt, best)
    return out


def episode_reward(attempts: list[float], how: str = "best") -> float:
    """The episode's reward from its attempts' rewards: ``"best"`` their maximum, ``"last"`` the last one's,
    ``"sum"`` the sum of the step rewards (:func:`step_rewards`: the best one's, at least 0, plus every negative
    one's): a plain sum of the attempts' rewards grew with every failed attempt a reward pays for (``shaped`` gives
    a wrong answer 0.1), so failing before answering right earned more than answering right at once. 0 for no
    attempt."""
    if how not in EPISODE_REWARDS:
        raise ValueError(f"episode_reward must be one of {', '.join(EPISODE_REWARDS)}, got {how!r}")
    if not attempts:
        return 0.0
    if how == "best":
        return max(attempts)
    if how == "last":
        return attempts[-1]
    return sum(step_rewards(attempts))
