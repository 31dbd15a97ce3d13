"""The internal exception that ends an evaluation with a status and a message."""

from __future__ import annotations


class Verdict(Exception):
    """Internal: ends the evaluation with a status and message. ``memory_account``: where the worker ran out of
    GPU memory, who held the GPU's memory then (:class:`kernelgym.judge.gpu_memory.MemoryAccount`), or ``None``."""

    memory_account = None

    def __init__(self, status: str, message: str):
        super().__init__(message)
        self.status = status
        self.message = message
