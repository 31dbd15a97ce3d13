"""RLlib registration: the ids resolve through RLlib's registry to working kernelgym envs."""

from __future__ import annotations

import pytest

pytest.importorskip("ray.rllib")

from conftest import DATA, GOOD  # noqa: E402


def test_ids_resolve_through_rllib_registry():
    from ray.tune.registry import ENV_CREATOR, _global_registry

    from kernelgym.integrations.rllib import register_rllib_envs

    ids = register_rllib_envs()
    assert "KernelBench-L2-v0" in ids
    creator = _global_registry.get(ENV_CREATOR, "KernelGym-L1-v0")
    env = creator({"tasks": str(DATA / "tasks"), "device": "cpu", "max_turns": 1})
    obs, _ = env.reset(seed=0)
    _, reward, terminated, _, info = env.step(GOOD)
    assert info["result"]["status"] == "ok" and reward > 0 and terminated


def test_algorithm_config_accepts_the_env():
    from ray.rllib.algorithms.ppo import PPOConfig

    from kernelgym.integrations.rllib import register_rllib_envs

    register_rllib_envs()
    config = PPOConfig().environment("KernelGym-L1-v0", env_config={"tasks": str(DATA / "tasks"), "device": "cpu"})
    assert config.env == "KernelGym-L1-v0" and config.env_config["device"] == "cpu"


@pytest.mark.slow
def test_episodes_are_collected_through_an_rllib_env_runner(tmp_path):
    import ray
    from ray.rllib.algorithms.ppo import PPOConfig

    from kernelgym.integrations.rllib import register_rllib_envs
    from kernelgym.integrations.rllib import text_policy_env_runner_cls

    register_rllib_envs()
    runner_cls = text_policy_env_runner_cls()
    config = (PPOConfig()
              .environment("KernelGym-L1-v0", env_config={"tasks": str(DATA / "tasks"), "device": "cpu",
                                                          "max_turns": 2, "policy": lambda obs: GOOD})
              .env_runners(env_runner_cls=runner_cls))
    runner = runner_cls(config=config)
    runner.assert_healthy()
    episodes = runner.sample(num_episodes=2)
    assert len(episodes) == 2
    for episode in episodes:
        assert episode.is_terminated and len(episode) == 1
        assert episode.get_actions()[0] == GOOD
        assert episode.get_rewards()[0] > 0
        assert episode.get_infos()[-1]["result"]["status"] == "ok"
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    try:  # the same runner as a Ray actor, as RLlib's EnvRunnerGroup starts it
        remote = ray.remote(runner_cls).remote(config=config, worker_index=1)
        remote_episodes = ray.get(remote.sample.remote(num_episodes=1))
        assert remote_episodes[0].get_infos()[-1]["result"]["status"] == "ok"
    finally:
        ray.shutdown()
