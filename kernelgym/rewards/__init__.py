"""Reward functions: ``reward(result, history) -> float``, named in a registry and replaceable by any callable.

``result`` is an :class:`~kernelgym.judge.result.EvalResult` (or its dict form); ``history`` is the list of earlier
results of the same episode (oldest first; :class:`~kernelgym.envs.kernel_env.KernelEnv` passes an empty list under
its default ``step_reward="improvement"``, which pays the improvement on the episode's best attempt itself:
:mod:`kernelgym.rewards.episode`). Every built-in reward gives incorrect, rejected and failed kernels
less than any correct kernel.
"""

from kernelgym.rewards.functions import (correct_reward, fast_p_reward, shaped_reward, speedup_coverage_reward,
                                        speedup_reward)
from kernelgym.rewards.registry import REWARDS, get_reward, register_reward

__all__ = ["REWARDS", "get_reward", "register_reward", "correct_reward", "fast_p_reward", "shaped_reward",
           "speedup_coverage_reward", "speedup_reward"]
