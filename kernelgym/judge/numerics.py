"""The numerics the eager reference runs under, pinned rather than inherited from whatever the process set.

Rule (docs/ARCHITECTURE.md, "Numerics"): the reference runs with torch's default precision settings, the ones
KernelBench's evaluator runs its references with — float32 matmuls in full fp32 (``torch.backends.cuda.matmul.
allow_tf32 = False``) and cuDNN convolutions allowed to use TF32 (``torch.backends.cudnn.allow_tf32 = True``). A
trainer that calls ``torch.set_float32_matmul_precision("high")`` in the judge's process therefore changes neither
the reference's outputs nor its timings. Kernels are not penalised for computing more exactly than a TF32
reference: an element within tolerance of the float64 result passes too (:mod:`kernelgym.judge.correctness`).
"""

from __future__ import annotations

import contextlib
import threading

import torch

#: (namespace, attribute, value) of every setting the reference runs under
REFERENCE_SETTINGS = ((torch.backends.cuda.matmul, "allow_tf32", False), (torch.backends.cudnn, "allow_tf32", True))

_lock = threading.Lock()


@contextlib.contextmanager
def reference_numerics():
    """Run the block under :data:`REFERENCE_SETTINGS`, restoring the process's own settings afterwards. Blocks of
    concurrent evaluations (threads of one process) are serialised, so none restores a setting under another."""
    with _lock:
        saved = [(space, name, getattr(space, name)) for space, name, _ in REFERENCE_SETTINGS]
        try:
            for space, name, value in REFERENCE_SETTINGS:
                setattr(space, name, value)
            yield
        finally:
            for space, name, value in saved:
                setattr(space, name, value)


@contextlib.contextmanager
def settings_held():
    """Hold the lock :func:`reference_numerics` holds, without changing a setting: for code that switches these
    settings itself (:func:`kernelgym.hardware.measure_ceilings`), so no reference runs under its switch."""
    with _lock:
        yield
