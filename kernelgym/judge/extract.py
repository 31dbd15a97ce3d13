"""Code extraction: from raw LLM text to the candidate's Python source (trusted side, pure text)."""

from __future__ import annotations

import re

#: a fenced block: its tag (the word after the backticks, not backtracked into: ``[^\n]*`` after it starts where the
#: word ends, so a long unbroken line after the backticks is read once, not once per character) and its body. The
#: runner reads every action with these, in the thread that keeps other evaluations' deadlines: both must be linear
#: in the text (a red-team helper's 200,000 newlines held the interpreter lock for a minute, 2026-12-06)
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)(?![A-Za-z0-9_+-])[^\n]*\n(.*?)```", re.DOTALL)
#: ``class ModelNew`` at the start of a line (Python's whitespace within the line, form feed included: ``\s*``
#: crossed newlines and rescanned the rest of the text from every line start)
_MODEL_NEW = re.compile(r"^[ \t\f]*class[ \t\f]+ModelNew\b", re.MULTILINE)
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
    if not _MODEL_NEW.search(code):
        raise ExtractionError("no `class ModelNew` found: answer with a whole Python file defining ModelNew "
                              "(in a ```python block)")
    return code
