"""Trainer adapters, none of which needs its trainer installed:

* :mod:`kernelgym.integrations.trl` — GRPO reward functions (sync and async) for TRL.
* :mod:`kernelgym.integrations.verl` — ``compute_score`` (and a batch form) for veRL.
* :mod:`kernelgym.integrations.skyrl` — a SkyRL-style multi-turn text environment.
* :mod:`kernelgym.integrations.scoring` — the batch scorer they share.
"""
