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
* Memory bounds: the interpreter's loads, stores and atomics act on raw host addresses, so an integer cast to a
  pointer (``addr.to(tl.pointer_type(tl.int64))``) read and wrote any byte of the worker: a tenth red-team helper
  (2026-12-06) rewrote a list's item slot to get the builtins module and ran code past every static rule, then
  forged its timings. The fix checks every address a launch touches (masked-off lanes aside): each access, of its
  element's size, must lie inside the storage of one of that launch's tensor arguments, or the launch raises (an
  out-of-bounds access on a GPU is a memory fault or a silent read of another buffer; here it is an error, for an
  honest kernel's bug too).
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
                                   ("bf16_dot", _fix_bf16_dot), ("memory_bounds", _fix_memory_bounds))
            if fix(interpreter, np, tl)]


#: what the memory bounds replace (dotted paths, for the worker's watch on patched objects)
MEMORY_BOUNDS_PATHS = ("triton.runtime.interpreter._interpreter", "triton.runtime.interpreter.GridExecutor.__call__",
                       "triton.runtime.interpreter.GridExecutor._init_args_hst")


class OutOfBoundsAccess(IndexError):
    """A kernel on the interpreter touched memory outside every tensor argument of its launch."""


class BoundedMemory:
    """The interpreter's native memory module (``triton.runtime.interpreter._interpreter``) with every access checked
    against the address ranges :meth:`allow` was last given; everything else is the native module's own."""

    def __init__(self, native, np):
        self._native, self._np = native, np
        self.allow(())

    def __getattr__(self, name):
        return getattr(self._native, name)

    def allow(self, extents) -> None:
        """Allow the ``(address, bytes)`` ``extents`` (any iterable; an empty one allows nothing): kept as sorted,
        disjoint ``[start, end)`` byte ranges, merged where they overlap."""
        ranges = sorted({(int(start), int(start) + int(size)) for start, size in extents})
        merged: list[list[int]] = []
        for start, end in ranges:
            if end <= start:
                continue
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        np = self._np
        self._starts = np.array([r[0] for r in merged], dtype=np.uint64)
        self._ends = np.array([r[1] for r in merged], dtype=np.uint64)

    def check(self, pointers, mask, itemsize: int, what: str) -> None:
        """Raise :class:`OutOfBoundsAccess` unless every address of ``pointers`` where ``mask`` holds (``None``:
        all), with ``itemsize`` bytes from it, lies inside one allowed range."""
        np = self._np
        addresses = np.asarray(pointers).astype(np.uint64, copy=False)
        if mask is None:
            addresses = addresses.ravel()
        else:
            addresses = addresses[np.broadcast_to(np.asarray(mask, dtype=bool), addresses.shape)]
        if addresses.size == 0:
            return
        at = np.searchsorted(self._starts, addresses, side="right").astype(np.int64) - 1
        ends = self._ends[np.maximum(at, 0)] if self._ends.size else np.zeros_like(addresses)
        inside = (at >= 0) & (addresses < ends)
        inside &= np.where(inside, ends, addresses) - addresses >= itemsize  # no wrap-around: ends > addresses
        if not inside.all():
            bad = int(addresses[~inside][0])
            raise OutOfBoundsAccess(f"out-of-bounds {what}: address {bad:#x} ({itemsize} bytes) lies outside every "
                                    f"tensor argument of the launch")

    def load(self, pointers, mask, other, dtype):
        self.check(pointers, mask, self._np.dtype(dtype).itemsize, "load")
        return self._native.load(pointers, mask, other, dtype)

    def store(self, pointers, value, mask):
        self.check(pointers, mask, self._np.asarray(value).dtype.itemsize, "store")
        return self._native.store(pointers, value, mask)

    def atomic_cas(self, pointers, compare, value, *rest):
        self.check(pointers, None, self._np.asarray(compare).dtype.itemsize, "atomic")
        return self._native.atomic_cas(pointers, compare, value, *rest)

    def atomic_rmw(self, op, pointers, value, mask, *rest):
        self.check(pointers, mask, self._np.asarray(value).dtype.itemsize, "atomic")
        return self._native.atomic_rmw(op, pointers, value, mask, *rest)


def _storages(args, interpreter):
    """The ``(address, bytes)`` of the storage of every tensor in ``args`` (tuples, lists and tensor descriptors'
    bases included), read with torch's own methods of its exact types. Anything else that the interpreter would
    take for a pointer (it takes whatever has ``data_ptr``) raises :class:`OutOfBoundsAccess`: a stand-in whose
    ``untyped_storage()`` reported any range it liked allowed all of memory (a red-team helper, 2026-12-06), as a
    tensor subclass overriding those methods could."""
    import torch

    unwrap = getattr(interpreter, "_unwrap_tensor", lambda t: t)
    for arg in args:
        if isinstance(arg, (tuple, list)):
            yield from _storages(arg, interpreter)
            continue
        if hasattr(arg, "base") and hasattr(arg, "block_shape"):  # a tensor descriptor: its base is the memory
            arg = arg.base
        elif not hasattr(arg, "data_ptr") and not hasattr(arg, "untyped_storage"):
            continue  # a number, a dtype, None: no memory of its own
        arg = unwrap(arg)
        if type(arg) not in (torch.Tensor, torch.nn.Parameter):
            raise OutOfBoundsAccess(f"a launch argument of type {type(arg).__name__!r} passed as a pointer: only "
                                    f"tensors may be")
        storage = torch.Tensor.untyped_storage(arg)
        yield torch.UntypedStorage.data_ptr(storage), torch.UntypedStorage.nbytes(storage)


def _fix_memory_bounds(interpreter, np, tl) -> bool:
    native = getattr(interpreter, "_interpreter", None)
    executor = getattr(interpreter, "GridExecutor", None)
    if native is None or executor is None or isinstance(native, BoundedMemory) or \
            not hasattr(executor, "_init_args_hst") or not all(hasattr(native, n) for n in ("load", "store")):
        return False
    bounded = BoundedMemory(native, np)
    init_args, call = executor._init_args_hst, executor.__call__

    def _init_args_hst(self, args_dev, kwargs):
        """The interpreter's host copies of the arguments; their storages are what the launch may touch."""
        args_hst, kwargs_hst = init_args(self, args_dev, kwargs)
        bounded.allow(_storages(list(args_hst) + list(kwargs_hst.values()), interpreter))
        return args_hst, kwargs_hst

    def __call__(self, *args, **kwargs):
        """One launch; nothing may be touched before its arguments are on the host, or after it."""
        bounded.allow(())
        try:
            return call(self, *args, **kwargs)
        finally:
            bounded.allow(())

    _init_args_hst._kernelgym_fixed = __call__._kernelgym_fixed = True
    executor._init_args_hst, executor.__call__ = _init_args_hst, __call__
    interpreter._interpreter = bounded
    return True


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
