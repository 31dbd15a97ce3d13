"""On the CPU, compile for a real GPU the Triton kernels a candidate launched in the interpreter.

Triton's interpreter (``TRITON_INTERPRET=1``, the judge's CPU mode) runs a kernel's body as Python, so it accepts
code the compiler refuses: a value bound only inside a loop and read after it, Python control flow on tensor
values, and the like. Such a kernel is ``ok`` on the CPU and a ``compile_error`` on every GPU, a reward that does
not carry over (a test kernel of this repository's own did exactly that, docs/BENCHMARKS.md, twenty-fourth session).
So on the CPU the worker records each distinct launch of the candidate's first forward (:class:`LaunchSpecs`: the
kernel, its arguments' types, its constexpr values, its launch options) and compiles it with Triton's own
compiler for :data:`TARGET`, which needs no GPU (the compiler and ``ptxas`` ship with Triton's CUDA backend).

Contract:

- Only what can be typed exactly is compiled: plain tensors (pointers of their dtype), Python ints, floats and
  bools, constexprs and ``None``; a launch with any other argument (a tensor descriptor, a tuple, a subclass) is
  left unchecked, so a wrong guess at a type can never fail an honest kernel.
- Only the compiler's ``CompilationError`` (the front end's verdict on the kernel's code, with its line) counts
  against the candidate (:meth:`LaunchSpecs.first_error`); any other failure (the backend, ``ptxas``, this
  module's typing) leaves that launch unchecked.
- A Triton build without the CUDA backend fails before its front end runs, with another error than
  ``CompilationError``: there nothing is checked. ``KERNELGYM_GPU_COMPILE=0`` turns the check off.
- At most :data:`MAX_SPECS` distinct launches are kept per evaluation (an autotuned kernel counts once per config).

The check runs in the worker, on the candidate's own objects: it is there for the CPU mode's fidelity (a kernel a
GPU would refuse is not rewarded on the CPU), not as a defence; the defences do not depend on it.
"""

from __future__ import annotations

import contextlib
import os
import sys
from dataclasses import dataclass, field

#: the GPU the kernels are compiled for on the CPU: ``(backend, compute capability, warp size)``; sm_90 (Hopper)
TARGET = ("cuda", 90, 32)

#: distinct launches compiled per evaluation at most
MAX_SPECS = 16

#: launch options a ``triton.Config`` or a launch passes that the compiler takes
OPTION_NAMES = ("num_warps", "num_stages", "num_ctas", "maxnreg")


def enabled() -> bool:
    """Whether the check runs: on unless ``KERNELGYM_GPU_COMPILE=0``."""
    return os.environ.get("KERNELGYM_GPU_COMPILE", "1") != "0"


@dataclass
class LaunchSpec:
    """One launch as the compiler sees it: the kernel's Python function, its signature (name -> Triton type or
    ``"constexpr"``), the constexprs' values and the launch options."""
    fn: object
    signature: dict
    constexprs: dict
    options: dict = field(default_factory=dict)

    @property
    def key(self) -> tuple:
        return (id(self.fn), tuple(self.signature.items()), repr(sorted(self.constexprs.items())),
                tuple(sorted(self.options.items())))


#: the compilable ``JITFunction`` of each kernel function seen (made once per function: a forward may launch one
#: kernel many times, and compiling and typing need it alike)
_JIT: dict = {}


def _jit_of(fn):
    if fn not in _JIT:
        from triton.runtime.jit import JITFunction

        _JIT[fn] = JITFunction(fn)
    return _JIT[fn]


def spec_of(fn, args: tuple, kwargs: dict) -> LaunchSpec | None:
    """The :class:`LaunchSpec` of launching the Python function ``fn`` (an ``InterpretedFunction``'s ``fn``) with
    ``args`` and ``kwargs`` as the interpreter received them (the autotuner's and heuristics' values included);
    ``None`` where an argument cannot be typed exactly."""
    import torch
    from triton.runtime.jit import mangle_type

    params = _jit_of(fn).params
    values = dict(zip((p.name for p in params), args))
    values.update((k, v) for k, v in kwargs.items() if any(p.name == k for p in params))
    signature, constexprs = {}, {}
    for p in params:
        if p.name in values:
            value = values[p.name]
        elif p.has_default:
            value = p.default
        else:
            return None
        if p.is_constexpr or value is None:
            signature[p.name], constexprs[p.name] = "constexpr", value
        elif type(value) is torch.Tensor or type(value) in (int, float, bool):
            signature[p.name] = mangle_type(value)
        else:
            return None
    options = {k: kwargs[k] for k in OPTION_NAMES if kwargs.get(k) is not None}
    return LaunchSpec(fn, signature, constexprs, options)


def _twin(value):
    """The compilable ``JITFunction`` of an ``InterpretedFunction``'s function (anything else: itself)."""
    return _jit_of(value.fn) if type(value).__name__ == "InterpretedFunction" else value


def _language_objects() -> list:
    """The modules of ``triton.language`` and the classes defined in them: what the interpreter patches."""
    import inspect

    objects = {}
    for name, module in list(sys.modules.items()):
        if module is not None and (name == "triton.language" or name.startswith("triton.language.")):
            objects[id(module)] = module
            for value in list(vars(module).values()):
                if inspect.isclass(value) and str(getattr(value, "__module__", "")).startswith("triton.language"):
                    objects[id(value)] = value
    return list(objects.values())


#: ``triton.language`` as it was before any kernel ran in the interpreter (:func:`remember_language`)
_CLEAN: list[tuple[object, dict]] = []


def remember_language() -> None:
    """Keep the attributes of ``triton.language``'s modules and classes as they are now, before any kernel runs:
    the interpreter patches them while it runs kernels (and leaves some patched after a kernel called a ``@jit``
    helper), and the compiler needs them as they were. Called by the worker before the candidate loads."""
    import triton.language  # noqa: F401 - its modules must be loaded to be remembered

    _CLEAN[:] = [(obj, dict(vars(obj))) for obj in _language_objects()]


@contextlib.contextmanager
def _unpatched_language():
    """``triton.language`` as :func:`remember_language` kept it while the block runs; as it was, after."""
    changes = []  # (object, name, value now, whether it had the name)
    try:
        for obj, clean in _CLEAN:
            now = dict(vars(obj))
            for name, value in clean.items():
                if name not in now or now[name] is not value:
                    changes.append((obj, name, now.get(name), name in now))
                    setattr(obj, name, value)
            for name in now:  # added since (a patch), but not a submodule imported since (tl.extra and the like)
                if name not in clean and not isinstance(now[name], type(sys)):
                    changes.append((obj, name, now[name], True))
                    delattr(obj, name)
        yield
    finally:
        for obj, name, value, had in reversed(changes):
            if had:
                setattr(obj, name, value)
            elif hasattr(obj, name):
                delattr(obj, name)


@contextlib.contextmanager
def _compilable(fn):
    """While the block runs: ``triton.language`` unpatched (:func:`_unpatched_language`), and every interpreted
    kernel (``InterpretedFunction``) in ``fn``'s module globals and in ``triton.language`` (whose own ``@jit``
    helpers, ``tl.cdiv`` and the like, are interpreted too under ``TRITON_INTERPRET=1``) replaced by its compilable
    twin, since the compiler resolves called kernels there; all put back afterwards."""
    with _unpatched_language():
        spaces = [getattr(fn, "__globals__", {})] + [vars(obj) for obj in _language_objects()
                                                       if isinstance(obj, type(sys))]
        swapped = [(space, name, value) for space in spaces for name, value in list(space.items())
                   if type(value).__name__ == "InterpretedFunction"]
        try:
            for space, name, value in swapped:
                space[name] = _twin(value)
            yield
        finally:
            for space, name, value in swapped:
                space[name] = value


def compile_spec(spec: LaunchSpec) -> None:
    """Compile ``spec`` for :data:`TARGET`; raises what the compiler raises."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    with _compilable(spec.fn):
        constexprs = {k: _twin(v) for k, v in spec.constexprs.items()}
        source = ASTSource(fn=_jit_of(spec.fn), signature=dict(spec.signature), constexprs=constexprs)
        triton.compile(source, target=GPUTarget(*TARGET), options=dict(spec.options))


def _is_compiler_verdict(exc: BaseException) -> bool:
    from triton.compiler.errors import CompilationError

    return isinstance(exc, CompilationError)


class RefusedByCompiler(Exception):
    """A kernel the interpreter ran and the compiler refused; the message names the kernel, the line of the
    candidate's file and the compiler's reason (the compiler's own error is the ``__cause__``)."""


def refusal(exc: BaseException, spec: LaunchSpec) -> RefusedByCompiler:
    """:class:`RefusedByCompiler` for the compiler's ``CompilationError`` ``exc`` on ``spec``."""
    name = getattr(spec.fn, "__name__", "?")
    node_line = getattr(getattr(exc, "node", None), "lineno", None)
    where, code = "", ""
    if node_line is not None:
        first = getattr(getattr(spec.fn, "__code__", None), "co_firstlineno", 1)
        where = f" line {first + node_line - 1}"
        lines = (getattr(exc, "src", None) or "").split("\n")
        code = f" `{lines[node_line - 1].strip()}`" if 0 < node_line <= len(lines) else ""
    reason = getattr(exc, "error_message", None) or (repr(exc.__cause__) if exc.__cause__ is not None else "")
    return RefusedByCompiler(f"kernel {name} (candidate.py{where}{code}) runs in Triton's interpreter but does not "
                             f"compile for a GPU (sm_{TARGET[1]}): {reason or str(exc).splitlines()[-1]}")


class LaunchSpecs:
    """The distinct launches seen by :meth:`note` (an observer of the interpreter's launches), compiled by
    :meth:`first_error`."""

    def __init__(self, limit: int = MAX_SPECS):
        self.limit = limit
        self.specs: dict[tuple, LaunchSpec] = {}
        #: launches that could not be typed exactly (left unchecked)
        self.untyped = 0

    def note(self, launcher, args: tuple, kwargs: dict) -> None:
        """Record one interpreter launch (``launcher``: the ``InterpretedFunction``)."""
        if len(self.specs) >= self.limit:
            return
        try:
            spec = spec_of(launcher.fn, args, kwargs)
        except Exception:  # noqa: BLE001 - not typed: unchecked, never the candidate's fault
            spec = None
        if spec is None:
            self.untyped += 1
            return
        self.specs.setdefault(spec.key, spec)

    def first_error(self) -> RefusedByCompiler | None:
        """Compile every recorded launch; the first the compiler refuses (its ``CompilationError``), as
        :func:`refusal`, else ``None`` (failures of any other kind leave their launch unchecked)."""
        for spec in self.specs.values():
            try:
                compile_spec(spec)
            except Exception as exc:  # noqa: BLE001
                if _is_compiler_verdict(exc):
                    refused = refusal(exc, spec)
                    refused.__cause__ = exc
                    return refused
        return None
