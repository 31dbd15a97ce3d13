"""Checks of user-given settings shared by the public entry points: a bad value is a clear error up front."""

from __future__ import annotations

import numbers

import numpy as np


def positive_int(name: str, value) -> int:
    """``value`` as an int if it is an integer of at least 1 (a numpy integer too), else a TypeError (not an
    integer: ``2.5``, ``None``, a bool) or ValueError (below 1) naming ``name``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int, got {type(value).__name__} {value!r:.40}")
    if value < 1:
        raise ValueError(f"{name} must be at least 1, got {value!r}")
    return int(value)
