"""Parsing and compiling Python source from several threads of one process.

CPython 3.11 keeps the recursion depth of its AST conversion in per-interpreter state, so ``ast.parse`` or
``compile`` running in two threads at once can fail with ``SystemError: AST constructor recursion depth mismatch``
(seen here with concurrent evaluations in a thread pool). Every parse and compile of task or candidate source in the
judge's process goes through these two functions, which hold one process-wide lock; the work is milliseconds.
"""

from __future__ import annotations

import ast
import threading

_LOCK = threading.Lock()


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse(source, filename)`` under the process-wide lock."""
    with _LOCK:
        return ast.parse(source, filename)


def compile_source(source: str, filename: str, mode: str = "exec", dont_inherit: bool = False):
    """``compile(source, filename, mode, dont_inherit=...)`` under the process-wide lock."""
    with _LOCK:
        return compile(source, filename, mode, dont_inherit=dont_inherit)
