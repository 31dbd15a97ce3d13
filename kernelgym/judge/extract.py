"""Code extraction: from raw LLM text to the candidate's Python source (trusted side, pure text)."""

from __future__ import annotations

import re

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)```", re.DOTALL)
_PYTHON_TAGS = {"", "python", "py", "python3"}


class ExtractionError(ValueError):
    """The text holds no usable Python program; the message says what was wrong."""


def extract_code(text: object, max_chars: int = 200_000) -> str:
    """Return the candidate program inside ``text``.

    Contract: when the text holds fenced code blocks, the *last* python-tagged (or untagged) block is the program;
    otherwise the whole text is taken as the program. Raises :class:`ExtractionError` for non-strings, empty text,
    text over ``max_chars`` and programs that do not define ``class ModelNew``.
    """
    if not isinstance(text, str):
        raise ExtractionError(f"the action must be a string, got {type(text).__name__}")
    if len(text) > max_chars:
        raise ExtractionError(f"the answer is {len(text)} characters long; the limit is {max_chars}")
    blocks = [body for tag, body in _FENCE.findall(text) if tag.lower() in _PYTHON_TAGS]
    code = blocks[-1] if blocks else text
    if not code.strip():
        raise ExtractionError("the answer holds no code")
    if "\x00" in code:
        raise ExtractionError("the code contains a NUL character")
    if not re.search(r"^\s*class\s+ModelNew\b", code, re.MULTILINE):
        raise ExtractionError("no `class ModelNew` found: answer with a whole Python file defining ModelNew "
                              "(in a ```python block)")
    return code
