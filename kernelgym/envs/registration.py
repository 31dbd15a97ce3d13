"""Gymnasium ids for kernelgym's environments (registered on ``import kernelgym``).

==========================  ===============================================================
id                          tasks
==========================  ===============================================================
``KernelBench-L1-v0``       level-1 tasks (single operators)
``KernelBench-L2-v0``       level-2 tasks (fusions)
``KernelBench-L3-v0``       level-3 tasks (architectures)
``KernelBench-v0``          every bundled task
``KernelBenchX-v0``         every bundled task, usually narrowed with ``categories=[...]``
==========================  ===============================================================

All accept :class:`~kernelgym.envs.kernel_env.KernelEnv`'s keyword arguments (tasks, backend, max_turns, reward,
profile, device, evaluator, ...).
"""

from __future__ import annotations

from gymnasium.envs.registration import register, registry

ENTRY_POINT = "kernelgym.envs.kernel_env:KernelEnv"

ENV_IDS = {
    "KernelBench-L1-v0": {"levels": [1], "pattern": "L1/*"},
    "KernelBench-L2-v0": {"levels": [2], "pattern": "L2/*"},
    "KernelBench-L3-v0": {"levels": [3], "pattern": "L3/*"},
    "KernelBench-v0": {},
    "KernelBenchX-v0": {},
}


def register_envs() -> None:
    """Register every id in :data:`ENV_IDS` once (safe to call again)."""
    for env_id, kwargs in ENV_IDS.items():
        if env_id not in registry:
            register(id=env_id, entry_point=ENTRY_POINT, kwargs=dict(kwargs), disable_env_checker=False)
