"""RLlib glue: kernelgym's Gymnasium ids registered in RLlib's environment registry.

RLlib (``pip install "kernelgym[rllib]"``) pins gymnasium 1.2.2; kernelgym supports gymnasium >= 1.0, so both work.
After :func:`register_rllib_envs`, ``AlgorithmConfig().environment("KernelGym-L1-v0", env_config={...})`` builds a
:class:`~kernelgym.envs.kernel_env.KernelEnv` with ``env_config`` as keyword arguments.
:func:`text_policy_env_runner_cls` gives an RLlib ``EnvRunner`` that collects ``SingleAgentEpisode`` objects with a
text policy (an LLM client, a replay) in place of an RLModule: see examples/rllib_text_policy.py.
"""

from __future__ import annotations

from kernelgym.envs.registration import ENV_IDS, register_envs


def make_env(env_id: str, env_config: dict | None = None):
    """Build a kernelgym env for RLlib: ``env_config`` holds KernelEnv keyword arguments."""
    import gymnasium as gym

    register_envs()  # the ids, in a Ray worker that has not imported kernelgym's __init__ yet
    return gym.make(env_id, **dict(env_config or {}))


def register_rllib_envs() -> list[str]:
    """Register every kernelgym id with ``ray.tune.registry.register_env``; returns the ids."""
    from ray.tune.registry import register_env

    for env_id in ENV_IDS:
        register_env(env_id, lambda config, _id=env_id: make_env(_id, config))
    return list(ENV_IDS)


def _runner_base():
    from ray.rllib.env.env_runner import EnvRunner

    return EnvRunner


def resolve_policy(spec):
    """A text policy from a callable or a ``"module:function"`` string."""
    if callable(spec):
        return spec
    if isinstance(spec, str) and ":" in spec:
        import importlib

        module, _, name = spec.partition(":")
        return getattr(importlib.import_module(module), name)
    raise ValueError("env_config['policy'] must be a callable observation -> text, or 'module:function'")


def text_policy_env_runner_cls():
    """The :class:`TextPolicyEnvRunner` class (built lazily so importing kernelgym never imports RLlib)."""
    base = _runner_base()

    class TextPolicyEnvRunner(base):
        """An RLlib ``EnvRunner`` whose actions come from a text policy (an LLM, a replay) instead of an RLModule.

        Configure with ``config.environment(env_id, env_config={..., "policy": fn_or_"module:function"})`` and
        ``config.env_runners(env_runner_cls=text_policy_env_runner_cls())``. ``sample(num_episodes=N)`` returns
        RLlib ``SingleAgentEpisode`` objects (observations, text actions, rewards, infos with the EvalResult).
        """

        def __init__(self, *, config, **kwargs):
            super().__init__(config=config, **kwargs)
            env_config = dict(self.config.env_config or {})
            self.policy = resolve_policy(env_config.pop("policy", None))
            self._env_kwargs = env_config
            self.make_env()

        def make_env(self):
            if self.env is not None:
                self.env.close()
            self.env = make_env(self.config.env, self._env_kwargs)

        def assert_healthy(self):
            assert self.env is not None and callable(self.policy), "TextPolicyEnvRunner is not set up"

        def get_spaces(self):
            return {"__env__": (self.env.observation_space, self.env.action_space)}

        def sample(self, *, num_episodes: int = 1, **kwargs):
            from ray.rllib.env.single_agent_episode import SingleAgentEpisode

            episodes = []
            for _ in range(num_episodes):
                episode = SingleAgentEpisode(observation_space=self.env.observation_space,
                                             action_space=self.env.action_space)
                obs, info = self.env.reset(seed=self._seed)
                episode.add_env_reset(obs, info)
                done = False
                while not done:
                    action = self.policy(obs)
                    obs, reward, terminated, truncated, info = self.env.step(action)
                    episode.add_env_step(obs, action, reward, infos=info, terminated=terminated, truncated=truncated)
                    self.num_env_steps_sampled_lifetime += 1
                    done = terminated or truncated
                episodes.append(episode)
            return episodes

        def get_state(self, *args, **kwargs):
            return {"num_env_steps_sampled_lifetime": self.num_env_steps_sampled_lifetime}

        def set_state(self, state):
            self.num_env_steps_sampled_lifetime = state.get("num_env_steps_sampled_lifetime", 0)

        def stop(self):
            if self.env is not None:
                self.env.close()

    return TextPolicyEnvRunner
