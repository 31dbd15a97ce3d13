"""Spaces for text environments.

Gymnasium's :class:`~gymnasium.spaces.Text` only contains strings made of its charset; kernel source and compiler
output use any character, so :class:`AnyText` accepts every ``str`` up to ``max_length`` while still sampling from a
printable charset (so ``check_env`` can step with random strings).
"""

from __future__ import annotations

from typing import Any

from gymnasium import spaces


class AnyText(spaces.Text):
    """A :class:`~gymnasium.spaces.Text` whose ``contains`` accepts any ``str`` of length ``min_length..max_length``."""

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"AnyText({self.min_length}, {self.max_length})"

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, AnyText) and self.min_length == other.min_length \
            and self.max_length == other.max_length
