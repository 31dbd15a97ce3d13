"""What a candidate's imported names reach, by value: the static rules' second half (trusted side).

The name rules of :mod:`kernelgym.judge.guards` read the text. But the allowed packages keep other modules and
callables under public names of their own: ``triton.language.extra.pkgutil`` is :mod:`pkgutil` (whose
``resolve_name`` imports any dotted string), ``torch.autograd.profiler_util.attrgetter`` is ``operator.attrgetter``
(``getattr`` on a string), ``torch.cuda.tunable.mp`` is :mod:`multiprocessing`, ``torch.xpu.cast`` is
``ctypes.cast`` (a red-team helper reached the worker's module through each, 2026-12-05). No list of names keeps up
with that, so every dotted name the candidate roots at an import is resolved here against the runner's own copy of
the same packages, and judged by what it *is*:

* a module on the way must be of an allowed package (:data:`~kernelgym.judge.guards.ALLOWED_MODULES`), and neither
  a forbidden module nor one of :data:`FORBIDDEN_SUBMODULES` (parts of allowed packages that run code strings,
  spawn processes or load pickles);
* a callable or class at the end must come from an allowed package (its ``__module__``), and must not be one of
  the loaders that unpickle (:data:`UNPICKLING`) or a forbidden built-in.

Resolution walks modules only: attributes of a module (``getattr`` on a module object) and submodules of allowed
packages (imported here, the same library code the worker imports); it never calls anything the candidate wrote
and never looks into other objects. A name that does not resolve here is left to the other rules. Results are
cached per process.
"""

from __future__ import annotations

import builtins
import dis
import functools
import importlib
import types

#: parts of allowed packages that run code given as strings, start processes, load pickles or native code
FORBIDDEN_SUBMODULES = (
    "torch.utils.collect_env", "torch.utils.data", "torch.utils.benchmark", "torch.utils.bottleneck",
    "torch.utils.cpp_extension", "torch.distributed", "torch.cuda.tunable", "torch.serialization", "torch.package",
    "torch.hub", "numpy.ctypeslib", "numpy.f2py", "numpy.distutils", "numpy.lib.stride_tricks", "numpy.testing",
    "triton.testing", "triton.tools.disasm", "triton.runtime.build", "triton.backends",
    # knobs.setenv writes the environment, which names modules Triton imports (TRITON_CACHE_MANAGER)
    "triton.knobs",
    # TorchScript evaluates type lines and type comments (torch.jit.annotations.parse_type_line; a fifth red-team
    # helper reached exec through a subscript inside one)
    "torch.jit",
)
#: what a CUDA candidate may reach besides: the extension builder (its native code is the backend itself)
NATIVE_BUILDERS = ("torch.utils.cpp_extension",)
#: names a module may show for one of the unpickling loaders (resolved to the functions themselves)
UNPICKLING = (("numpy", "load"), ("torch", "load"))


def _forbidden_module(name: str, native: bool = False) -> str | None:
    """Why the module named ``name`` may not be reached (``native``: by a CUDA candidate), or ``None``."""
    from kernelgym.judge.guards import ALLOWED_MODULES, FORBIDDEN_MODULES

    top = name.split(".")[0]
    if top not in ALLOWED_MODULES:
        return f"the module {name}"
    for bad in (*FORBIDDEN_MODULES, *FORBIDDEN_SUBMODULES):
        if native and bad in NATIVE_BUILDERS:
            continue
        if name == bad or name.startswith(bad + "."):
            return f"the module {name}"
    return None


@functools.lru_cache(maxsize=1)
def _forbidden_objects() -> dict[int, str]:
    """``id`` -> name of the unpickling loaders and the forbidden built-ins (kept alive by the modules holding
    them, so their ids stay theirs)."""
    from kernelgym.judge.guards import FORBIDDEN_CALLS

    out = {id(getattr(builtins, name)): f"the built-in {name}" for name in FORBIDDEN_CALLS if hasattr(builtins, name)}
    for module, name in UNPICKLING:
        try:
            out[id(getattr(importlib.import_module(module), name))] = f"{module}.{name}, which unpickles"
        except (ImportError, AttributeError):
            pass
    return out


#: built-ins a Python function's own code calls by name to run code strings, and attributes it reads to find frames
#: or start threads and processes: public helpers of allowed packages that wrap them (``numpy.testing.measure``
#: execs a string, ``triton.language.str_to_ty`` evals one, ``triton.runtime.jit.create_function_from_signature``
#: execs source it pastes together; a third red-team helper, 2026-12-05)
CODE_RUNNING_BUILTINS = {"exec", "eval", "compile", "__import__",
                         # attribute access by a name the caller passes: torch.ao.quantization.utils.getattr_from_fqn
                         # is functools.reduce(getattr, ...) (a fourth red-team helper)
                         "getattr", "setattr", "delattr"}
#: modules a Python function's own code uses as globals to run code or unpickle (``numpy.lib.format.read_array``
#: calls ``pickle.load`` when its second argument, given by position, is true: a fifth red-team helper)
CODE_RUNNING_GLOBALS = {"pickle", "_pickle", "cPickle", "marshal", "Unpickler"}
CODE_RUNNING_ATTRS = {"_getframe", "start_new_thread", "Thread", "Popen", "system", "fork", "execv", "execve",
                      "dlopen", "CDLL", "import_module", "attrgetter", "methodcaller", "resolve_name"}


def _runs_code(value) -> str | None:
    """Why ``value`` (a Python function, or a method) runs code strings, frames, threads or processes, from its own
    bytecode and that of the functions nested in it; ``None`` for anything else (C functions, classes)."""
    code = getattr(getattr(value, "__func__", value), "__code__", None)
    if not isinstance(code, types.CodeType):
        return None
    stack = [code]
    while stack:
        current = stack.pop()
        stack += [c for c in current.co_consts if isinstance(c, types.CodeType)]
        for ins in dis.get_instructions(current):
            name = ins.argval if isinstance(ins.argval, str) else None
            if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME") and name in CODE_RUNNING_BUILTINS | CODE_RUNNING_GLOBALS \
                    or ins.opname in ("LOAD_ATTR", "LOAD_METHOD") and name in CODE_RUNNING_ATTRS:
                return f"{getattr(value, '__qualname__', value)!s}, whose code uses {name}"
    return None


def _judge_value(value, native: bool) -> str | None:
    if isinstance(value, types.ModuleType):
        return _forbidden_module(value.__name__, native)
    named = _forbidden_objects().get(id(value))
    if named is not None:
        return named
    if callable(value) and not isinstance(value, types.ModuleType):
        home = getattr(value, "__module__", None)
        # a C accelerator module counts as its package (_functools as functools, _ctypes as ctypes)
        if isinstance(home, str) and home and home != "builtins" and _forbidden_module(home.split(".")[0].lstrip("_")):
            return f"{getattr(value, '__qualname__', value)!s} of the module {home}"
        return _runs_code(value)
    return None


@functools.lru_cache(maxsize=4096)
def forbidden_reach(path: str, native: bool = False) -> str | None:
    """What forbidden thing the dotted ``path`` (rooted at an allowed module, e.g. ``torch.cuda.tunable.mp``)
    reaches on the way or at its end, or ``None`` (also when it does not resolve here). ``native``: the candidate
    is a CUDA one, which may reach :data:`NATIVE_BUILDERS`."""
    parts = path.split(".")
    if _forbidden_module(parts[0]):
        return None  # the import rules report it
    try:
        obj = importlib.import_module(parts[0])
    except Exception:  # noqa: BLE001 - an allowed package missing here: nothing to resolve against
        return None
    for i in range(1, len(parts)):
        if not isinstance(obj, types.ModuleType):
            return None  # only modules are walked
        name = ".".join(parts[:i + 1])
        try:
            if hasattr(obj, parts[i]):
                obj = getattr(obj, parts[i])
            elif _forbidden_module(name, native):
                return _forbidden_module(name, native)  # named, not imported here
            else:
                obj = importlib.import_module(name)  # a submodule not imported yet: the worker's import finds it
        except Exception:  # noqa: BLE001 - a lazy attribute or a submodule that fails here: unresolved
            return None
        why = _judge_value(obj, native)
        if why is not None:
            return why
    return None


@functools.lru_cache(maxsize=4096)
def names_a_module(path: str) -> bool:
    """Whether the dotted ``path`` (rooted at an allowed module) is a module here. Only a path that resolves through
    modules to a module counts; one that does not resolve is not a module."""
    from kernelgym.judge.guards import ALLOWED_MODULES

    parts = path.split(".")
    if parts[0] not in ALLOWED_MODULES:
        return False
    try:
        obj = importlib.import_module(parts[0])
        for i in range(1, len(parts)):
            if not isinstance(obj, types.ModuleType):
                return False
            obj = getattr(obj, parts[i]) if hasattr(obj, parts[i]) else \
                importlib.import_module(".".join(parts[:i + 1]))
    except Exception:  # noqa: BLE001 - unresolved here
        return False
    return isinstance(obj, types.ModuleType)

