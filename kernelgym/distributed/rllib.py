"""RLlib glue: kernelgym's Gymnasium ids registered in RLlib's environment registry.

RLlib (``pip install "kernelgym[rllib]"``) pins gymnasium 1.2.2; kernelgym supports gymnasium >= 1.0, so both work.
After :func:`register_rllib_envs`, ``AlgorithmConfig().environment("KernelBench-L1-v0", env_config={...})`` builds a
:class:`~kernelgym.envs.kernel_env.KernelEnv` with ``env_config`` as keyword arguments.
"""

from __future__ import annotations

from kernelgym.envs.registration import ENV_IDS


def make_env(env_id: str, env_config: dict | None = None):
    """Build a kernelgym env for RLlib: ``env_config`` holds KernelEnv keyword arguments."""
    import gymnasium as gym

    import kernelgym  # noqa: F401 - registers the ids

    return gym.make(env_id, **dict(env_config or {}))


def register_rllib_envs() -> list[str]:
    """Register every kernelgym id with ``ray.tune.registry.register_env``; returns the ids."""
    from ray.tune.registry import register_env

    for env_id in ENV_IDS:
        register_env(env_id, lambda config, _id=env_id: make_env(_id, config))
    return list(ENV_IDS)
