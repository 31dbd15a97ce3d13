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

Importing runs a module's top-level code in the runner, the trusted process: a submodule not loaded yet is imported
here only when every part of its name is public and none is a test, example or ``__main__`` module
(:func:`_importable_here`); any other is refused unimported. ``torch.utils.model_dump.__main__`` ran ``sys.exit`` on
the trainer's own command line and killed it, and ``torch.testing._internal.common_utils`` froze torch's backend
flags, so every later reference forward of that process failed (a red-team helper, 2026-12-06). A ``SystemExit``
raised by an import is the module's verdict, not the runner's end.
"""

from __future__ import annotations

import builtins
import dis
import functools
import importlib
import inspect
import sys
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
    # a CPU launcher program (run_cpu), which re-exports torch.distributed's process starter start_processes under
    # its own name; reachable by name once torch.backends reads were left to these rules
    "torch.backends.xeon",
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


#: library functions whose code runs a code string it builds from arguments it validates first, allowed by identity:
#: ``collections.namedtuple`` evals ``lambda _cls, a, b: _tuple_new(_cls, (a, b))`` from field names it has checked
#: to be identifiers that are no keyword and do not start with ``_`` (``rename`` replaces any other), in a namespace
#: with empty built-ins (``typing.NamedTuple`` is built on it)
VETTED_CODE_RUNNERS = (("collections", "namedtuple"),)


@functools.lru_cache(maxsize=1)
def _vetted_objects() -> frozenset:
    """``id`` of each of :data:`VETTED_CODE_RUNNERS` (kept alive by its module, so the id stays its own)."""
    out = set()
    for module, name in VETTED_CODE_RUNNERS:
        try:
            out.add(id(getattr(importlib.import_module(module), name)))
        except (ImportError, AttributeError):
            pass
    return frozenset(out)


def _runs_code(value, builtins_used: frozenset = frozenset()) -> str | None:
    """Why ``value`` (a Python function, or a method) runs code strings, frames, threads or processes, from its own
    bytecode and that of the functions nested in it; ``None`` for anything else (C functions, classes).
    ``builtins_used``: the global names that count (default: :data:`CODE_RUNNING_BUILTINS` and
    :data:`CODE_RUNNING_GLOBALS`)."""
    names = builtins_used or CODE_RUNNING_BUILTINS | CODE_RUNNING_GLOBALS
    code = getattr(getattr(value, "__func__", value), "__code__", None)
    if not isinstance(code, types.CodeType):
        return None
    stack = [code]
    while stack:
        current = stack.pop()
        stack += [c for c in current.co_consts if isinstance(c, types.CodeType)]
        instructions = list(dis.get_instructions(current))
        for at, ins in enumerate(instructions):
            name = ins.argval if isinstance(ins.argval, str) else None
            if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME") and name in names \
                    or ins.opname in ("LOAD_ATTR", "LOAD_METHOD") and name in CODE_RUNNING_ATTRS \
                    and not (name == "import_module" and _imports_a_constant(instructions, at)):
                return f"{getattr(value, '__qualname__', value)!s}, whose code uses {name}"
    return None


#: instructions that may stand between an attribute load and its call's argument without changing the argument:
#: the argument's prefix (``EXTENDED_ARG``), the call's setup (``PUSH_NULL`` on 3.13, ``PRECALL`` on 3.11)
_CALL_SETUP = {"EXTENDED_ARG", "PUSH_NULL", "PRECALL"}


def _imports_a_constant(instructions: list, at: int) -> bool:
    """Whether the ``import_module`` attribute loaded by ``instructions[at]`` is called right away with one
    argument, a string constant of the code itself naming a module not forbidden (:func:`_forbidden_module`):
    ``importlib.import_module("torch._decomp.decompositions")``, as ``torch.nn.functional.pad`` does. The caller
    cannot choose that module, so the function does not import by the caller's string. The shape is read from the
    instructions, with nothing but call setup between them and no jump landing inside it (a jump there could
    bring another argument: ``import_module(name or "x")``); any other use (a variable, a second argument, a
    keyword, the function kept as a value) is not this shape."""
    shape = []
    for ins in instructions[at + 1:]:
        if ins.is_jump_target:
            return False
        if ins.opname in _CALL_SETUP:
            continue
        shape.append(ins)
        if len(shape) == 2:
            break
    if len(shape) != 2:
        return False
    argument, call = shape
    return argument.opname == "LOAD_CONST" and isinstance(argument.argval, str) \
        and not argument.argval.startswith(".") and _forbidden_module(argument.argval) is None \
        and call.opname == "CALL" and call.arg == 1


#: what a class's own methods may not use (its inherited library methods' getattr is the library's business:
#: nn.Module's own machinery uses it, and a subclass reaches its methods only by their fixed names)
CLASS_CODE_RUNNING = frozenset(CODE_RUNNING_BUILTINS - {"getattr", "setattr", "delattr"} | CODE_RUNNING_GLOBALS)


def _class_runs_code(cls: type) -> str | None:
    """Why a class of an allowed package runs code strings or unpickles, from the code of the methods, static and
    class methods and properties it and its bases define (``torch._guards.Source.get_value`` evals a class
    attribute that a subclass sets: a sixth red-team helper); ``None`` otherwise."""
    for klass in getattr(cls, "__mro__", ()):
        if klass.__module__ == "builtins":
            continue
        for value in vars(klass).values():
            function = getattr(value, "__func__", None) or getattr(value, "fget", None) or value
            why = _runs_code(function, CLASS_CODE_RUNNING) if callable(function) else None
            if why is not None:
                return why
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
        if id(value) in _vetted_objects():
            return None
        return _class_runs_code(value) if isinstance(value, type) else _runs_code(value)
    # any other object: judged by its type's home (a ModuleSpec kept by a package is importlib's, and its loader
    # writes and executes files: a sixth red-team helper)
    home = getattr(type(value), "__module__", None)
    if isinstance(home, str) and home != "builtins" and _forbidden_module(home.split(".")[0].lstrip("_")):
        return f"an object of the module {home}"
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
        obj = _import_here(parts[0])
    except Exception:  # noqa: BLE001 - an allowed package missing here: nothing to resolve against
        return None
    for i in range(1, len(parts)):
        name = ".".join(parts[:i + 1])
        if isinstance(obj, types.ModuleType) and not _has_static(obj, parts[i]) and _forbidden_module(name, native):
            return _forbidden_module(name, native)  # named, not imported here
        try:
            obj = _step(obj, parts, i)
        except NotImportedHere as refused:
            return str(refused)
        except Exception:  # noqa: BLE001 - a lazy attribute or a submodule that fails here: unresolved
            return None
        why = _judge_value(obj, native)
        if why is not None:
            return why
    return None


_UNRESOLVED = object()


@functools.lru_cache(maxsize=4096)
def _resolve(path: str):
    """The object the dotted ``path`` (rooted at an allowed module) names here, walked as :func:`forbidden_reach`
    walks it (modules by attribute or import, anything else statically); :data:`_UNRESOLVED` when it does not
    resolve."""
    from kernelgym.judge.guards import ALLOWED_MODULES

    parts = path.split(".")
    if parts[0] not in ALLOWED_MODULES:
        return _UNRESOLVED
    try:
        obj = _import_here(parts[0])
        for i in range(1, len(parts)):
            obj = _step(obj, parts, i)
    except Exception:  # noqa: BLE001 - unresolved here
        return _UNRESOLVED
    return obj


class NotImportedHere(Exception):
    """A submodule the runner refuses to import (:func:`_importable_here`); the message says why."""


#: parts of a module's name that mark code run as a program or for a library's own tests, never by a kernel
UNIMPORTED_PARTS = frozenset({"__main__", "test", "tests", "testing", "examples", "benchmarks"})


def _importable_here(name: str) -> str | None:
    """Why the runner does not import the module named ``name`` (not loaded yet), or ``None``: a private or dunder
    part, or a test, example or ``__main__`` module (:data:`UNIMPORTED_PARTS`) anywhere in the name."""
    if name in sys.modules:
        return None  # loaded already: nothing of it runs again
    for part in name.split("."):
        if part.startswith("_") or part in UNIMPORTED_PARTS:
            return f"the module {name}, which the judge does not import (a private, test or program module)"
    return None


def _import_here(name: str) -> types.ModuleType:
    """``name`` imported in the runner, where :func:`_importable_here` allows it; :class:`NotImportedHere` otherwise,
    and where importing it raised ``SystemExit``."""
    why = _importable_here(name)
    if why is not None:
        raise NotImportedHere(why)
    try:
        return importlib.import_module(name)
    except SystemExit:
        raise NotImportedHere(f"the module {name}, whose import ends the process") from None


def _has_static(obj, name: str) -> bool:
    """Whether ``obj`` has the attribute ``name`` as stored (no ``__getattr__`` or property of its runs)."""
    try:
        inspect.getattr_static(obj, name)
    except AttributeError:
        return False
    return True


def _step(obj, parts: list[str], i: int):
    """``parts[i]`` of ``obj`` (what ``parts[:i]`` named): a module's attribute, or its submodule not imported yet
    (the worker's import finds it; imported here through :func:`_import_here`); of a class or any other object a
    module keeps, the attribute as stored, found statically (no property or ``__getattr__`` of its runs here:
    ``TritonSemantic.lang`` is a module). A module's own ``__getattr__`` does not run either: torch's imported
    ``torch._dynamo`` and ``torch._inductor`` (about 870 modules) into the runner for a candidate naming
    ``torch._dynamo.config``, past :func:`_importable_here`'s rule on private parts (a tenth red-team helper)."""
    try:
        return inspect.getattr_static(obj, parts[i])
    except AttributeError:
        if not isinstance(obj, types.ModuleType):
            raise
        return _import_here(".".join(parts[:i + 1]))


def names_a_module(path: str) -> bool:
    """Whether the dotted ``path`` (rooted at an allowed module) is a module here; one that does not resolve is
    not a module."""
    return isinstance(_resolve(path), types.ModuleType)


def names_a_class(path: str) -> type | None:
    """The class the dotted ``path`` names here, or ``None``."""
    obj = _resolve(path)
    return obj if isinstance(obj, type) else None
