"""Named reward functions. ``get_reward`` accepts a registered name, ``"fast_p:1.5"`` style parameters, or a callable."""

from __future__ import annotations

from typing import Callable

RewardFn = Callable[[object, list], float]
REWARDS: dict[str, Callable[..., RewardFn]] = {}


def register_reward(name: str, factory: Callable[..., RewardFn]) -> None:
    """Register ``factory(**params) -> reward_fn`` under ``name`` (raises if the name is taken)."""
    if name in REWARDS:
        raise ValueError(f"reward {name!r} is already registered")
    REWARDS[name] = factory


def get_reward(spec: str | RewardFn = "speedup") -> RewardFn:
    """Resolve a reward: a callable is returned as is; ``"name"`` or ``"name:arg"`` looks up the registry."""
    if callable(spec):
        return spec
    if not isinstance(spec, str):
        raise TypeError(f"reward must be a name or a callable, got {type(spec).__name__}")
    name, _, arg = spec.partition(":")
    if name not in REWARDS:
        raise ValueError(f"unknown reward {name!r}; registered: {', '.join(sorted(REWARDS))}")
    return REWARDS[name](float(arg)) if arg else REWARDS[name]()
