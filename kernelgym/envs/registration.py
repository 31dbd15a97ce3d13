"""Gymnasium ids for kernelgym's environments (registered on ``import kernelgym``).

Two task sets, named honestly: ``KernelBench-*`` serve KernelBench's own problems, ``KernelGym-*`` the suite bundled
with kernelgym (its own problems, numbered in KernelBench's style: ``L2/1_...`` is *not* KernelBench's L2 problem 1).
Train on one, evaluate on the other; every task says which set it is from (``info["task_set"]``).

=====================  =============================================================================================
id                     tasks
=====================  =============================================================================================
``KernelBench-L1-v0``  KernelBench's level-1 problems (single operators)
``KernelBench-L2-v0``  KernelBench's level-2 problems (fusions)
``KernelBench-L3-v0``  KernelBench's level-3 problems (architectures)
``KernelBench-v0``     KernelBench's levels 1-3
``KernelGym-L1-v0``    the bundled level-1 tasks (``L1/...``)
``KernelGym-L2-v0``    the bundled level-2 tasks (``L2/...``)
``KernelGym-L3-v0``    the bundled level-3 tasks (``L3/...``)
``KernelGym-v0``       every bundled task (levels 1-3 and the extra set)
``KernelGym-X-v0``     the bundled extra set (``X/...``, KernelBench-X-style categories; narrow with
                       ``categories=[...]``)
=====================  =============================================================================================

``KernelGym-L<n>-v0`` is ``levels=[n], pattern="L<n>/*"`` (:data:`ENV_IDS`): the extra set's tasks have levels
too, and ``levels=[n]`` alone (e.g. given to :class:`~kernelgym.envs.vector.KernelVectorEnv`) adds its level-``n``
``X/`` tasks.

KernelBench's problems come from ``tasks=PATH`` (a KernelBench checkout, its ``KernelBench/`` folder or a parquet
file), else ``$KERNELBENCH_PATH``, else the Hugging Face dataset ``ScalingIntelligence/KernelBench`` (needs
``datasets``; downloaded once, then cached). When none is reachable, ``gym.make`` raises
:class:`~kernelgym.tasks.TaskSetUnavailable` with a one-line message saying how to get them. The bundled suite
given to a ``KernelBench-*`` id (its path, a folder of it, or a :class:`~kernelgym.tasks.TaskSet` of its tasks) is
refused with a :class:`~kernelgym.tasks.TaskError` naming the ``KernelGym-*`` id: it is not KernelBench's problems. ``KernelGym-*`` ids need
nothing beyond the package (``tasks=PATH`` loads any other task folder instead).

All accept :class:`~kernelgym.envs.kernel_env.KernelEnv`'s keyword arguments (tasks, levels, categories, backend,
max_turns, reward, profile, device, evaluator, torch_policy, ...): ``gym.make("KernelGym-L2-v0",
torch_policy="strict")`` judges every step under that torch-use policy (:mod:`kernelgym.judge.policy`).
"""

from __future__ import annotations

from gymnasium.envs.registration import register, registry

ENTRY_POINT = "kernelgym.envs.kernel_env:KernelEnv"

ENV_IDS = {
    "KernelBench-L1-v0": {"task_set": "kernelbench", "levels": [1]},
    "KernelBench-L2-v0": {"task_set": "kernelbench", "levels": [2]},
    "KernelBench-L3-v0": {"task_set": "kernelbench", "levels": [3]},
    "KernelBench-v0": {"task_set": "kernelbench", "levels": [1, 2, 3]},
    "KernelGym-L1-v0": {"task_set": "kernelgym", "levels": [1], "pattern": "L1/*"},
    "KernelGym-L2-v0": {"task_set": "kernelgym", "levels": [2], "pattern": "L2/*"},
    "KernelGym-L3-v0": {"task_set": "kernelgym", "levels": [3], "pattern": "L3/*"},
    "KernelGym-v0": {"task_set": "kernelgym"},
    "KernelGym-X-v0": {"task_set": "kernelgym", "pattern": "X/*"},
}


def register_envs() -> None:
    """Register every id in :data:`ENV_IDS` once (safe to call again)."""
    for env_id, kwargs in ENV_IDS.items():
        if env_id not in registry:
            register(id=env_id, entry_point=ENTRY_POINT, kwargs=dict(kwargs), disable_env_checker=False)
