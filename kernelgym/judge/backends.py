"""The languages a candidate's kernels may be written in: ``triton`` (Triton kernels in Python) and ``cuda`` (CUDA
source built with ``torch.utils.cpp_extension.load_inline``)."""

from __future__ import annotations

BACKENDS = ("triton", "cuda")


def check_backend(backend: object) -> str:
    """``backend`` when it is one of :data:`BACKENDS`; a ValueError naming them otherwise (the judge itself reports
    an unknown backend as the candidate's ``compile_error``, so callers that take it as a setting check it first)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be 'triton' or 'cuda', got {backend!r}")
    return backend
