"""RLlib registration: the ids resolve through RLlib's registry to working kernelgym envs."""

from __future__ import annotations

import pytest

pytest.importorskip("ray.rllib")

from conftest import DATA, GOOD  # noqa: E402


def test_ids_resolve_through_rllib_registry():
    from ray.tune.registry import ENV_CREATOR, _global_registry

    from kernelgym.distributed import register_rllib_envs

    ids = register_rllib_envs()
    assert "KernelBench-L2-v0" in ids
    creator = _global_registry.get(ENV_CREATOR, "KernelBench-L1-v0")
    env = creator({"tasks": str(DATA / "tasks"), "device": "cpu", "max_turns": 1})
    obs, _ = env.reset(seed=0)
    _, reward, terminated, _, info = env.step(GOOD)
    assert info["result"]["status"] == "ok" and reward > 0 and terminated


def test_algorithm_config_accepts_the_env():
    from ray.rllib.algorithms.ppo import PPOConfig

    from kernelgym.distributed import register_rllib_envs

    register_rllib_envs()
    config = PPOConfig().environment("KernelBench-L1-v0", env_config={"tasks": str(DATA / "tasks"), "device": "cpu"})
    assert config.env == "KernelBench-L1-v0" and config.env_config["device"] == "cpu"
