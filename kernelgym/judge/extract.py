"""Code extraction: from raw LLM text to the candidate's Python source (trusted side, pure text)."""

from __future__ import annotations

import re

#: a fence's tag: the word right after the backticks (the rest of the fence's line is ignored)
_TAG = re.compile(r"[ \t]*([A-Za-z0-9_+-]*)")
#: ``class ModelNew`` at the start of a line (Python's whitespace within the line, form feed included: ``\s*``
#: crossed newlines and rescanned the rest of the text from every line start)
_MODEL_NEW = re.compile(r"^[ \t\f]*class[ \t\f]+ModelNew\b", re.MULTILINE)
_PYTHON_TAGS = {"", "python", "py", "python3"}


class ExtractionError(ValueError):
    """The text holds no usable Python program; the message says what was wrong."""


def extract_code(text: object, max_chars: int = 200_000) -> str:
    """Return the candidate program inside ``text``.

    Contract: when the text holds fenced code blocks, the *last* python-tagged (or untagged) block is the program;
    a python-tagged (or untagged) block opened after the last closed one and never closed (an answer cut off at the
    token limit, or a closing fence left out) is the program instead, from its opening fence to the end of the text;
    otherwise the whole text is taken as the program. Raises :class:`ExtractionError` for non-strings, empty text,
    text over ``max_chars`` and programs that do not define ``class ModelNew``.
    """
    if not isinstance(text, str):
        raise ExtractionError(f"the action must be a string, got {type(text).__name__}")
    if len(text) > max_chars:
        raise ExtractionError(f"the answer is {len(text)} characters long; the limit is {max_chars}")
    blocks = [body for tag, body in fenced_blocks(text) if tag.lower() in _PYTHON_TAGS]
    code = blocks[-1] if blocks else text
    if not code.strip():
        raise ExtractionError("the answer holds no code")
    if "\x00" in code:
        raise ExtractionError("the code contains a NUL character")
    if not _MODEL_NEW.search(code):
        raise ExtractionError("no `class ModelNew` found: answer with a whole Python file defining ModelNew "
                              "(in a ```python block)")
    return code


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """The fenced blocks of ``text`` in order, as ``(tag, body)``: a fence is three backticks anywhere, its tag the
    word after them, its body everything from the end of that line to the next three backticks; a block opened and
    never closed (an answer cut off at the token limit, or its closing fence left out) runs to the end of the text,
    and is kept only where its body is not blank. One pass over the text with ``str.find``: the runner reads every
    action in the thread that keeps other evaluations' deadlines, and a regular expression searching for a fence's
    line end from every backtick was quadratic (200,000 backticks took 33 s of that thread, holding the interpreter
    lock, 2026-12-07)."""
    blocks, at = [], 0
    while True:
        opening = text.find("```", at)
        if opening < 0:
            return blocks
        line_end = text.find("\n", opening + 3)
        if line_end < 0:
            return blocks  # no line after any fence from here on: nothing opens
        tag = _TAG.match(text, opening + 3).group(1)
        closing = text.find("```", line_end + 1)
        if closing < 0:
            body = text[line_end + 1:]
            return blocks + [(tag, body)] if body.strip() else blocks
        blocks.append((tag, text[line_end + 1:closing]))
        at = closing + 3
