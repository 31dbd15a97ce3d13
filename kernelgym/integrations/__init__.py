"""Trainer adapters (docs/INTEGRATIONS.md); the reward paths need no trainer installed:

* :mod:`kernelgym.integrations.trl` — GRPO reward functions (sync and async) and a multi-turn ``rollout_func``.
* :mod:`kernelgym.integrations.verl` — ``compute_score`` for veRL's reward loop (and the legacy batch form).
* :mod:`kernelgym.integrations.verl_agent` — a multi-turn veRL agent loop, ``kernelgym_agent`` (needs verl).
* :mod:`kernelgym.integrations.skyrl` — a multi-turn ``skyrl_gym`` text environment, registered as ``kernelgym``.
* :mod:`kernelgym.integrations.scorer` — the batch scorer and the shared judge pools they use.
* :mod:`kernelgym.integrations.rllib` — RLlib: ``register_rllib_envs()`` and a text-policy ``EnvRunner`` (needs ray[rllib]).
"""
