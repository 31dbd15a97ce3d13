"""Fixes to Triton's CPU interpreter, applied in CPU-mode workers before any candidate code is loaded.

* ``tl.dot`` on bfloat16 operands: the interpreter stores bf16 as uint16 bit patterns and multiplies those as
  integers, giving garbage. The fix converts bf16 operands to float32 first (what the GPU's bf16 MMA with fp32
  accumulation computes, up to summation order).
* The kernel's ``def`` line: the interpreter re-reads a kernel's source lines and executes them from the *last*
  line that starts with ``def `` (meant to skip decorators), so a ``def`` inside a string at the end of the body
  ran as the kernel, code the static checks had read as a string constant (an eighth red-team helper imported
  ``sys`` that way). The fix takes the line from the syntax tree: the function's own ``def``.
* The kernel's namespace: the interpreter executes a rewritten kernel in its module's globals, after copying its
  own globals (``inspect``, ``ast``, ``np``, ...) into them, so a candidate that left a name unbound at run time
  (``inspect = None; del inspect``) found ``inspect`` there after its first launch (a ninth red-team helper; the
  static rule on unbound names reads the text, not the run). The fix runs the rewrite against a copy of the
  module's globals: the interpreter's names go into the copy, never into the candidate's module.
"""

from __future__ import annotations


def apply() -> list[str]:
    """Apply every fix that the installed Triton needs; return the names of those applied."""
    try:
        import numpy as np
        import triton.language as tl
        from triton.runtime import interpreter
    except ImportError:  # pragma: no cover - no triton, nothing to fix
        return []
    return [name for name, fix in (("def_line", _fix_def_line), ("own_namespace", _fix_namespace),
                                   ("bf16_dot", _fix_bf16_dot)) if fix(interpreter, np, tl)]


def _fix_namespace(interpreter, np, tl) -> bool:
    rewriter = getattr(interpreter, "FunctionRewriter", None)
    original = getattr(rewriter, "_compile_and_exec", None)
    if original is None or getattr(original, "_kernelgym_fixed", False):
        return False

    def _compile_and_exec(self, transformed_ast):
        """The interpreter's own step, on a stand-in for the kernel whose globals are a copy of its module's."""
        import types

        fn = self.fn
        self.fn = types.FunctionType(fn.__code__, dict(fn.__globals__), fn.__name__, fn.__defaults__,
                                     fn.__closure__)
        try:
            return original(self, transformed_ast)
        finally:
            self.fn = fn

    _compile_and_exec._kernelgym_fixed = True
    rewriter._compile_and_exec = _compile_and_exec
    return True


def _fix_def_line(interpreter, np, tl) -> bool:
    rewriter = getattr(interpreter, "FunctionRewriter", None)
    if rewriter is None or not hasattr(rewriter, "_find_def") or getattr(rewriter._find_def, "_kernelgym_fixed",
                                                                          False):
        return False

    def _find_def(self, lines):
        """The 1-based line, within ``lines``, of the function's own ``def``: where the syntax tree puts it."""
        import ast
        import textwrap

        return ast.parse(textwrap.dedent("".join(lines))).body[0].lineno

    _find_def._kernelgym_fixed = True
    rewriter._find_def = _find_def
    return True


def _fix_bf16_dot(interpreter, np, tl) -> bool:
    builder = getattr(interpreter, "InterpreterBuilder", None)
    convert = getattr(interpreter, "_convert_float", None)
    if builder is None or convert is None or getattr(builder.create_dot, "_kernelgym_fixed", False):
        return False
    original = builder.create_dot

    def create_dot(self, a, b, d, input_precision, max_num_imprecise_acc):
        if a.dtype.scalar == tl.bfloat16 or b.dtype.scalar == tl.bfloat16:
            a = _as_fp32(a, convert, np, tl, interpreter)
            b = _as_fp32(b, convert, np, tl, interpreter)
        return original(self, a, b, d, input_precision, max_num_imprecise_acc)

    create_dot._kernelgym_fixed = True
    builder.create_dot = create_dot
    return True


def _as_fp32(handle, convert, np, tl, interpreter):
    if handle.dtype.scalar != tl.bfloat16:
        return handle
    data = convert(handle.data, tl.bfloat16, tl.float32, None).view(np.float32)
    return interpreter.TensorHandle(data, tl.float32)
