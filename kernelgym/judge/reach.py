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
* a callable or class on the way must come from an allowed package, judged by the full name of every module it
  comes from (:func:`_homes`, :func:`_forbidden_home`: ``torch.backends.xeon.run_cpu.start_processes`` is
  torch.distributed's wherever it is re-exported), and must not be one of the loaders that unpickle
  (:data:`UNPICKLING`), torch's C file and IR loaders (:data:`C_FILE_AND_CODE_LOADERS`) or a forbidden built-in;
  a Python function's code must not run code strings (:func:`_runs_code`).

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
import importlib.util
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
#: C halves of torch.serialization and torch.jit that torch's core shows under ``torch`` itself, where no module
#: name tells them (their ``__module__`` is ``torch``): readers and writers of archives at any path, and loaders
#: of TorchScript IR (a survey of public names, benchmarks/reach_survey.py, 2026-12-07)
C_FILE_AND_CODE_LOADERS = (("torch", "PyTorchFileReader"), ("torch", "PyTorchFileWriter"),
                           ("torch", "import_ir_module"), ("torch", "import_ir_module_from_buffer"),
                           ("torch", "ScriptModuleSerializer"), ("torch", "DeserializationStorageContext"),
                           ("torch", "SerializationStorageContext"), ("torch", "parse_ir"))


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
    for module, name in C_FILE_AND_CODE_LOADERS:
        try:
            out[id(getattr(importlib.import_module(module), name))] = f"{module}.{name}, which reads or writes " \
                                                                      f"files or loads code"
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
#: library functions whose code calls ``getattr`` only with names it takes from the object's own class, allowed by
#: identity: ``dataclasses.replace(obj, **changes)`` reads ``getattr(obj, f.name)`` for each field of ``obj``'s
#: dataclass (names written as annotations in a class body, where the rules refuse dunders) and builds a new
#: instance of that class, so it reaches nothing ``obj.name`` did not (an honest ``replace(cfg, BLOCK=128)``,
#: QA round 3). ``dataclasses.fields`` is not among them: it hands out the ``Field`` objects of any dataclass, a
#: library's too, whose default factories and types are values these rules never judge.
VETTED_ATTRIBUTE_READERS = (("dataclasses", "replace"),)


@functools.lru_cache(maxsize=1)
def _vetted_objects() -> frozenset:
    """``id`` of each of :data:`VETTED_CODE_RUNNERS` and :data:`VETTED_ATTRIBUTE_READERS` (kept alive by its
    module, so the id stays its own)."""
    out = set()
    for module, name in VETTED_CODE_RUNNERS + VETTED_ATTRIBUTE_READERS:
        try:
            out.add(id(getattr(importlib.import_module(module), name)))
        except (ImportError, AttributeError):
            pass
    return frozenset(out)


#: where the code-running names of :data:`CODE_RUNNING_BUILTINS`, :data:`CODE_RUNNING_GLOBALS` and
#: :data:`CODE_RUNNING_ATTRS` live: a function's global, closure variable or default that *is* one of them counts
#: whatever it is named (``from importlib import import_module as load``)
CODE_RUNNING_HOMES = ("builtins", "importlib", "importlib._bootstrap", "pickle", "_pickle", "marshal", "operator",
                      "_operator", "pkgutil", "sys", "threading", "_thread", "subprocess", "os", "posix", "ctypes",
                      "_ctypes")
#: the import functions, whose call with one constant argument naming an allowed module is no import by the
#: caller's string (:func:`_imports_a_constant`)
IMPORTERS = {"import_module", "__import__"}


@functools.lru_cache(maxsize=1)
def _code_running_objects() -> dict[int, str]:
    """``id`` -> name of each object that :data:`CODE_RUNNING_HOMES` keep under a code-running name (the modules
    ``pickle``, ``_pickle`` and ``marshal`` themselves among them); imported here (standard library modules)."""
    out: dict[int, str] = {}
    wanted = CODE_RUNNING_BUILTINS | CODE_RUNNING_GLOBALS | CODE_RUNNING_ATTRS | IMPORTERS
    for home in CODE_RUNNING_HOMES:
        try:
            module = importlib.import_module(home)
        except ImportError:
            continue
        if home in CODE_RUNNING_GLOBALS:
            out[id(module)] = home
        for name in wanted:
            found = module.__dict__.get(name)
            if found is not None and not isinstance(found, (str, int, bool)):
                out.setdefault(id(found), name)
    return out


_MISSING = object()


def _runs_code(value, builtins_used: frozenset = frozenset()) -> str | None:
    """Why ``value`` (a Python function, or a method) runs code strings, frames, threads or processes, from its own
    bytecode and that of the functions nested in it; ``None`` for anything else (C functions, classes).
    ``builtins_used``: the global names that count (default: :data:`CODE_RUNNING_BUILTINS` and
    :data:`CODE_RUNNING_GLOBALS`). A global is also resolved through the function's own globals (and built-ins)
    and judged by what it is (:func:`_code_running_objects`), as are its closure variables and defaults; a name
    imported inside it (``from importlib import import_module``) counts by the name imported. The import functions
    (:data:`IMPORTERS`, as an attribute, a global or a built-in) called at once with one constant naming an allowed
    module do not count (:func:`_imports_a_constant`)."""
    names = builtins_used or CODE_RUNNING_BUILTINS | CODE_RUNNING_GLOBALS
    function = getattr(value, "__func__", value)
    code = getattr(function, "__code__", None)
    if not isinstance(code, types.CodeType):
        return None
    label = f"{getattr(value, '__qualname__', value)!s}, whose code uses"
    counted = names | CODE_RUNNING_ATTRS | IMPORTERS
    running = _code_running_objects()
    # what the function holds besides its code: closure cells and defaults
    held = [c.cell_contents for c in getattr(function, "__closure__", None) or () if _cell_is_set(c)]
    held += list(getattr(function, "__defaults__", None) or ())
    held += list((getattr(function, "__kwdefaults__", None) or {}).values())
    for obj in held:
        name = running.get(id(obj))
        if name is not None and name in counted:
            return f"{label} {name}"
    scope = getattr(function, "__globals__", None)
    scope = scope if isinstance(scope, dict) else {}
    built = scope.get("__builtins__", builtins)
    built = built.__dict__ if isinstance(built, types.ModuleType) else built if isinstance(built, dict) else {}
    stack = [code]
    while stack:
        current = stack.pop()
        stack += [c for c in current.co_consts if isinstance(c, types.CodeType)]
        instructions = list(dis.get_instructions(current))
        for at, ins in enumerate(instructions):
            name = ins.argval if isinstance(ins.argval, str) else None
            if name is None:
                continue
            if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
                obj = scope.get(name, built.get(name, _MISSING))
                what = name if name in names or obj is _MISSING and name in counted \
                    else running.get(id(obj)) if obj is not _MISSING else None
                if what is None or what not in counted:
                    continue
            elif ins.opname in ("LOAD_ATTR", "LOAD_METHOD"):
                what = name if name in CODE_RUNNING_ATTRS | IMPORTERS else None
            elif ins.opname == "IMPORT_FROM":
                what = _imported_from(instructions, at, function, running, counted)
            elif ins.opname == "IMPORT_NAME":
                what = name if name.split(".")[0] in CODE_RUNNING_GLOBALS & counted else None
            else:
                continue
            if what is None or what in IMPORTERS and ins.opname != "IMPORT_FROM" \
                    and _imports_a_constant(instructions, at):
                continue
            return f"{label} {what if what == name else f'{name} ({what})'}"
    return None


def _imported_from(instructions: list, at: int, function, running: dict, counted: set) -> str | None:
    """What the ``from M import name`` at ``instructions[at]`` (an ``IMPORT_FROM``) imports, if it counts: the object
    ``M`` holds now, judged by identity (:func:`_code_running_objects`; triton's own ``compile`` is not the
    built-in), or, where ``M`` is not loaded here or not found, the name itself."""
    name = instructions[at].argval
    module_name, level = None, 0
    for back in range(at - 1, -1, -1):
        if instructions[back].opname == "IMPORT_NAME":
            module_name = instructions[back].argval
            if back >= 2 and instructions[back - 2].opname == "LOAD_CONST" \
                    and isinstance(instructions[back - 2].argval, int):
                level = instructions[back - 2].argval
            break
    if isinstance(module_name, str) and level:
        package = (getattr(function, "__globals__", None) or {}).get("__package__")
        try:
            module_name = importlib.util.resolve_name("." * level + module_name, package) if package else None
        except (ImportError, ValueError):
            module_name = None
    module = sys.modules.get(module_name) if isinstance(module_name, str) else None
    found = getattr(module, "__dict__", {}).get(name, _MISSING) if module is not None else _MISSING
    if found is _MISSING:
        return name if name in counted else None
    if isinstance(found, types.ModuleType) and module_name in CODE_RUNNING_GLOBALS:
        return module_name
    what = running.get(id(found))
    return what if what is not None and what in counted else None


def _cell_is_set(cell) -> bool:
    try:
        _ = cell.cell_contents
    except ValueError:  # an empty cell
        return False
    return True


#: instructions that may stand between an attribute load and its call's argument without changing the argument:
#: the argument's prefix (``EXTENDED_ARG``), the call's setup (``PUSH_NULL`` on 3.13, ``PRECALL`` on 3.11)
_CALL_SETUP = {"EXTENDED_ARG", "PUSH_NULL", "PRECALL"}


def _imports_a_constant(instructions: list, at: int) -> bool:
    """Whether the import function (:data:`IMPORTERS`: ``import_module``, ``__import__``, loaded as an attribute
    or a global) loaded by ``instructions[at]`` is called right away with one
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


#: where C code of allowed packages lives beside the C halves of forbidden ones: torch's core ``torch._C`` holds the
#: public API's C functions and classes (``torch.nn.functional.linear`` is ``torch._C._nn.linear``,
#: ``torch.Generator`` is ``torch._C.Generator``), so a callable from there is judged by :data:`FORBIDDEN_C_HOMES`,
#: not refused for the name ``torch._C`` (which the name rules refuse to write)
C_CORES = ("torch._C",)
#: the C halves, inside :data:`C_CORES`, of forbidden modules: a callable defined there is refused wherever it is
#: re-exported (prefixes: ``torch._C._distributed`` covers ``_distributed_c10d``, ``_distributed_rpc``, ...)
FORBIDDEN_C_HOMES = ("torch._C._distributed", "torch._C._dynamo", "torch._C._jit")
#: modules that name no code of their own: the built-ins (judged by identity, :func:`_forbidden_objects`) and
#: pybind11's base class of every C++ class (``pybind11_builtins.pybind11_object``)
NO_HOME = {"builtins", "pybind11_builtins"}
#: private implementation modules of allowed ones, counted as the module they implement (``lstrip("_")`` counts a C
#: accelerator, ``_functools``, as its package; these are named otherwise)
IMPLEMENTS = {"_collections_abc": "collections.abc", "_weakrefset": "weakref", "_sitebuiltins": "site"}


def _forbidden_home(home, native: bool, listed_only: bool = False) -> str | None:
    """Why a callable or class defined in the module named ``home`` (its full name: ``__module__``, a C function's
    module, a function's globals' ``__name__``) may not be reached, or ``None``: the home's package is not allowed
    (a C accelerator module counting as its package; not judged when ``listed_only``), the home is one of the
    forbidden modules or submodules or below one, or, inside torch's core (:data:`C_CORES`), one of
    :data:`FORBIDDEN_C_HOMES`."""
    if not isinstance(home, str) or not home or home in NO_HOME:
        return None
    top = home.split(".")[0]
    home = IMPLEMENTS.get(top, top.lstrip("_")) + home[len(top):] if top.startswith("_") else home
    if listed_only and top in _forbidden_tops():
        return f"the module {top}"
    if any(home == core or home.startswith(core + ".") for core in C_CORES):
        bad = next((b for b in FORBIDDEN_C_HOMES if home.startswith(b)), None)
        return f"the module {home}" if bad else None
    if listed_only:
        from kernelgym.judge.guards import FORBIDDEN_MODULES

        listed = home.split(".")[0] in FORBIDDEN_MODULES or _forbidden_module(home.split(".")[0], native) is None
        return _forbidden_module(home, native) if listed else None  # a module neither allowed nor listed
    return _forbidden_module(home, native)


@functools.lru_cache(maxsize=1)
def _forbidden_tops() -> frozenset:
    """The top-level modules of the forbidden list (``os``, ``_thread``, ``posix``, ...)."""
    from kernelgym.judge.guards import FORBIDDEN_MODULES

    return frozenset(m for m in FORBIDDEN_MODULES if "." not in m)


def _is_pybind_record(obj) -> bool:
    """pybind11 keeps each C++ function's record as the ``__self__`` of its built-in function: no home of its own."""
    return type(obj).__module__ == "pybind11_builtins"


def _homes(value, depth: int = 0) -> list[tuple[str, bool]]:
    """The names of the modules that define ``value`` (a callable, a class, or what a class keeps: a static or class
    method, a property), each that identifies its origin: ``__module__``; a Python function's globals'
    ``__name__`` (the module whose code it is, whatever ``functools.wraps`` copied into ``__module__``); a C
    function's module (its ``__self__``) or, for a C method bound to an object, that object's class; a descriptor's
    class (``__objclass__``); and, unwrapped, what it wraps or binds: a bound method's function and object's class,
    a ``functools.partial``'s function, ``__wrapped__``, a static or class method's function, a property's
    accessors; a class's bases (an allowed class derived from ``threading.Thread`` starts threads). Each with
    whether only the forbidden lists judge it (``listed_only`` of :func:`_forbidden_home`): the globals of a
    wrapper that a decorator of the standard library made (``contextlib.contextmanager``'s ``helper``,
    ``typing_extensions.deprecated``'s) are that library's, which runs the function it wraps (judged itself), and a
    class's bases from such a library (``contextlib.ContextDecorator``, ``ast.NodeVisitor``) are that library's
    plumbing, while a base from a forbidden module (``threading.Thread``, ``weakref.ref``) is refused."""
    if depth > 8:
        return []
    homes: list[tuple[str, bool]] = []

    def add(obj) -> None:
        homes.extend(_homes(obj, depth + 1))

    module = getattr(value, "__module__", None) if not isinstance(value, types.ModuleType) else None
    if isinstance(module, str):
        homes.append((module, False))
    if isinstance(value, types.FunctionType):
        name = value.__globals__.get("__name__")
        if isinstance(name, str):
            homes.append((name, True))
    elif isinstance(value, types.BuiltinFunctionType):
        owner = value.__self__
        if isinstance(owner, types.ModuleType):
            homes.append((owner.__name__, False))
        elif owner is not None and not _is_pybind_record(owner):
            homes.append((type(owner).__module__ if not isinstance(owner, type) else owner.__module__, False))
    elif isinstance(value, types.MethodType):
        add(value.__func__)
        owner = value.__self__
        homes.append((owner.__module__ if isinstance(owner, type) else type(owner).__module__, False))
    elif isinstance(value, (staticmethod, classmethod)):
        add(value.__func__)
    elif isinstance(value, property):
        for accessor in (value.fget, value.fset, value.fdel):
            if accessor is not None:
                add(accessor)
    elif isinstance(value, (functools.partial, functools.partialmethod)):
        add(value.func)
    elif isinstance(value, type):
        homes.extend((k.__module__, True) for k in value.__mro__[1:] if isinstance(k.__module__, str))
    objclass = getattr(value, "__objclass__", None) if not isinstance(value, type) else None
    if isinstance(objclass, type):
        homes.append((objclass.__module__, False))
    try:
        wrapped = inspect.getattr_static(value, "__wrapped__", None) if not isinstance(value, type) else None
    except Exception:  # noqa: BLE001 - an object whose class breaks static lookup: nothing more to read
        wrapped = None
    if wrapped is not None and wrapped is not value and callable(wrapped):
        add(wrapped)
    return homes


def _judge_value(value, native: bool) -> str | None:
    if isinstance(value, types.ModuleType):
        return _forbidden_module(value.__name__, native)
    named = _forbidden_objects().get(id(value))
    if named is not None:
        return named
    code_like = isinstance(value, (staticmethod, classmethod, property, functools.partialmethod))
    if callable(value) or code_like:
        # judged by the FULL name of every module it comes from, so that a function of a forbidden module is refused
        # wherever an allowed one re-exports it (torch.backends.xeon.run_cpu.start_processes is torch.distributed's)
        for home, listed_only in _homes(value):
            if _forbidden_home(home, native, listed_only):
                return f"{getattr(value, '__qualname__', value)!s} of the module {home}"
        if id(value) in _vetted_objects():
            return None
        if isinstance(value, type):
            return _class_runs_code(value)
        if not callable(value):
            return None  # a property or class method as a class keeps it: what reads it further is judged then
        for function in _functions_of(value):
            why = _runs_code(function)
            if why is not None:
                return why
        return None
    # any other object: judged by its type's home (a ModuleSpec kept by a package is importlib's, and its loader
    # writes and executes files: a sixth red-team helper), the full name of each module its class comes from
    for home, listed_only in _homes(type(value)):
        if _forbidden_home(home, native, listed_only):
            return f"an object of the module {home}"
    return None


@functools.lru_cache(maxsize=1)
def _dynamo_disable_code():
    """The code of the wrapper ``torch._disable_dynamo(fn)`` returns (``None`` where torch has none): torch's own,
    the same for every function it wraps (a lazy import of dynamo and a ``getattr`` of a constant name)."""
    try:
        import torch

        return torch._disable_dynamo(lambda: None).__code__
    except Exception:  # noqa: BLE001 - a torch without it: nothing is unwrapped
        return None


def _functions_of(value) -> list:
    """The Python functions whose code runs when ``value`` is called or read: itself, a bound method's function,
    a partial's, a static or class method's, a property's accessors; for torch's dynamo-disabling wrapper, the
    function it wraps. Importing ``torch._dynamo`` wraps ``torch.manual_seed`` so, and the wrapper's ``getattr`` made
    ``torch.manual_seed`` forbidden in a runner that had imported dynamo (a torch.compile baseline, another test)
    and allowed in one that had not: the same text got two verdicts (CI, thirty-sixth session)."""
    code = getattr(value, "__code__", None)
    if code is not None and code is _dynamo_disable_code():
        wrapped = inspect.getattr_static(value, "__wrapped__", None)
        if isinstance(wrapped, types.FunctionType):
            return _functions_of(wrapped)
    if isinstance(value, (staticmethod, classmethod, types.MethodType)):
        return _functions_of(value.__func__)
    if isinstance(value, (functools.partial, functools.partialmethod)):
        return _functions_of(value.func)
    if isinstance(value, property):
        return [f for f in (value.fget, value.fset, value.fdel) if f is not None]
    return [value]


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
