"""Fixes to Triton's CPU interpreter, applied in CPU-mode workers before any candidate code is loaded.

* ``tl.dot`` on bfloat16 operands: the interpreter stores bf16 as uint16 bit patterns and multiplies those as
  integers, giving garbage. The fix converts bf16 operands to float32 first (what the GPU's bf16 MMA with fp32
  accumulation computes, up to summation order).
"""

from __future__ import annotations


def apply() -> list[str]:
    """Apply every fix that the installed Triton needs; return the names of those applied."""
    applied = []
    try:
        import numpy as np
        import triton.language as tl
        from triton.runtime import interpreter
    except ImportError:  # pragma: no cover - no triton, nothing to fix
        return applied
    builder = getattr(interpreter, "InterpreterBuilder", None)
    convert = getattr(interpreter, "_convert_float", None)
    if builder is None or convert is None or getattr(builder.create_dot, "_kernelgym_fixed", False):
        return applied
    original = builder.create_dot

    def create_dot(self, a, b, d, input_precision, max_num_imprecise_acc):
        if a.dtype.scalar == tl.bfloat16 or b.dtype.scalar == tl.bfloat16:
            a = _as_fp32(a, convert, np, tl, interpreter)
            b = _as_fp32(b, convert, np, tl, interpreter)
        return original(self, a, b, d, input_precision, max_num_imprecise_acc)

    create_dot._kernelgym_fixed = True
    builder.create_dot = create_dot
    applied.append("bf16_dot")
    return applied


def _as_fp32(handle, convert, np, tl, interpreter):
    if handle.dtype.scalar != tl.bfloat16:
        return handle
    data = convert(handle.data, tl.bfloat16, tl.float32, None).view(np.float32)
    return interpreter.TensorHandle(data, tl.float32)
