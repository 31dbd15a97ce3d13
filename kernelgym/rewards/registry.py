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
    """Resolve a reward: a callable is returned as is; ``"name"`` or ``"name:arg"`` looks up the registry.

    Raises:
        ValueError: an unknown name, or an argument that is not a number, or one the reward takes none of or
            refuses (``"correct:1"``, ``"fast_p:abc"``, ``"speedup:1"``); the message names the spec.
    """
    if callable(spec):
        return spec
    if not isinstance(spec, str):
        raise TypeError(f"reward must be a name or a callable, got {type(spec).__name__}")
    name, _, arg = spec.partition(":")
    if name not in REWARDS:
        raise ValueError(f"unknown reward {name!r}; registered: {', '.join(sorted(REWARDS))}")
    if not arg:
        return REWARDS[name]()
    try:
        value = float(arg)
    except ValueError:
        raise ValueError(f"reward {spec!r}: {arg!r} is not a number (e.g. fast_p:1.5, speedup:20)") from None
    try:
        return REWARDS[name](value)
    except TypeError:  # a factory without a parameter: "correct:1"
        raise ValueError(f"reward {spec!r}: {name!r} takes no argument; use {name!r}") from None
