"""Survey of the reach check (kernelgym/judge/reach.py): which callables of forbidden or risky modules can a
candidate still name through an allowed one?

Walks every public attribute path of depth at most ``--depth`` (attribute steps after the root) from each module
of ``guards.ALLOWED_MODULES``, the way :func:`kernelgym.judge.reach.forbidden_reach` walks a dotted name: a module's
attributes as stored, its public submodules (imported as the reach check would import them,
:func:`reach._importable_here`), a class's or any other object's attributes as stored (``inspect.getattr_static``).
A path whose prefix the reach check refuses is not walked further (every extension of it is refused too). Each
object is walked once, from the first (shortest) path that reaches it unrefused; whether a value is refused does
not depend on the path that reaches it, only whether a module named on the way is.

A *finding* is a path the reach check does not refuse whose value is a callable (function, built-in, class, bound
method, static or class method, property, partial) that comes from a risky module, by an account of its origin
that is independent of reach.py's own (``_homes``): its ``__module__``; for a Python function, the module whose
file its code was compiled from (``co_filename``) and its globals' ``__name__``; a C function's module object
(``__self__``); a descriptor's class; what it wraps or binds; a class's bases. Risky: the forbidden modules and
submodules (guards.FORBIDDEN_MODULES, reach.FORBIDDEN_SUBMODULES) and the families subprocess, os, sys,
multiprocessing, torch.distributed, torch.multiprocessing, torch._dynamo, torch.utils.cpp_extension, ctypes,
importlib, pickle, shutil, socket, threading, signal (and their C twins), and the built-ins exec, eval, open, ...
by identity. Every finding is confirmed with the real ``forbidden_reach``.

Run: ``python benchmarks/reach_survey.py [--depth 4] [--native] [--roots torch,numpy]``; exits 1 when there are
findings. It imports every public submodule of the allowed packages, so it takes minutes.
"""

from __future__ import annotations

import argparse
import builtins
import collections
import functools
import importlib
import inspect
import os
import pkgutil
import sys
import time
import types
import warnings

#: families of modules whose callables a kernel never needs (besides the forbidden lists)
RISKY_FAMILIES = (
    "subprocess", "_posixsubprocess", "os", "posix", "nt", "sys", "multiprocessing", "_multiprocessing",
    "torch.distributed", "torch.multiprocessing", "torch._dynamo", "torch.utils.cpp_extension", "ctypes", "_ctypes",
    "importlib", "_imp", "pickle", "_pickle", "marshal", "shutil", "socket", "_socket", "threading", "_thread",
    "signal", "_signal", "runpy", "code", "pty", "torch._C._distributed", "torch._C._dynamo",
)
#: built-ins that run code, read or write files or reach the interpreter's state, by identity
RISKY_BUILTINS = ("exec", "eval", "compile", "open", "__import__", "breakpoint", "input", "getattr", "setattr",
                  "delattr", "globals", "locals", "vars", "memoryview")


def _module_by_file() -> dict[str, str]:
    out = {}
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None) if isinstance(module, types.ModuleType) else None
        if isinstance(path, str):
            out.setdefault(os.path.realpath(path), name)
    return out


class Origins:
    """The modules a value comes from, independently of reach.py's own account."""

    def __init__(self) -> None:
        self.by_file = _module_by_file()
        self.risky_ids = {id(getattr(builtins, n)): f"builtins.{n}" for n in RISKY_BUILTINS}
        self.risky_ids[id(importlib.import_module)] = "importlib.import_module"
        self.risky_ids[id(importlib.__import__)] = "importlib.__import__"

    def file_module(self, filename: str) -> str | None:
        real = os.path.realpath(filename)
        found = self.by_file.get(real)
        if found is None and os.path.exists(real):
            self.by_file = _module_by_file()  # a module imported since
            found = self.by_file.get(real)
        return found

    def of(self, value, depth: int = 0) -> list[str]:
        if depth > 8:
            return []
        out = []
        if id(value) in self.risky_ids:
            out.append(self.risky_ids[id(value)])
        module = getattr(value, "__module__", None) if not isinstance(value, types.ModuleType) else None
        if isinstance(module, str):
            out.append(module)
        if isinstance(value, types.FunctionType):
            out.append(str(value.__globals__.get("__name__")))
            found = self.file_module(value.__code__.co_filename)
            if found:
                out.append(found)
        elif isinstance(value, types.BuiltinFunctionType):
            owner = value.__self__
            if isinstance(owner, types.ModuleType):
                out.append(owner.__name__)
            elif owner is not None and type(owner).__module__ != "pybind11_builtins":
                out.append(getattr(owner if isinstance(owner, type) else type(owner), "__module__", "?"))
        elif isinstance(value, types.MethodType):
            out += self.of(value.__func__, depth + 1)
            owner = value.__self__
            out.append(getattr(owner if isinstance(owner, type) else type(owner), "__module__", "?"))
        elif isinstance(value, (staticmethod, classmethod)):
            out += self.of(value.__func__, depth + 1)
        elif isinstance(value, property):
            for f in (value.fget, value.fset, value.fdel):
                if f is not None:
                    out += self.of(f, depth + 1)
        elif isinstance(value, (functools.partial, functools.partialmethod)):
            out += self.of(value.func, depth + 1)
        elif isinstance(value, type):
            out += [k.__module__ for k in value.__mro__[1:] if isinstance(k.__module__, str)]
        elif callable(value) and not isinstance(value, types.GenericAlias):  # (an alias calls its origin)
            out += self.of(type(value), depth + 1)
        objclass = getattr(value, "__objclass__", None) if not isinstance(value, type) else None
        if isinstance(objclass, type):
            out.append(objclass.__module__)
        try:
            wrapped = inspect.getattr_static(value, "__wrapped__", None) if not isinstance(value, type) else None
        except Exception:  # noqa: BLE001
            wrapped = None
        if wrapped is not None and wrapped is not value and callable(wrapped):
            out += self.of(wrapped, depth + 1)
        return out


def _risky(origins: list[str], native: bool) -> str | None:
    from kernelgym.judge.guards import FORBIDDEN_MODULES
    from kernelgym.judge.reach import FORBIDDEN_SUBMODULES, NATIVE_BUILDERS

    families = set(RISKY_FAMILIES) | FORBIDDEN_MODULES | set(FORBIDDEN_SUBMODULES)
    if native:
        families -= set(NATIVE_BUILDERS)
    for origin in origins:
        if origin.startswith("builtins."):
            return origin
        if origin == "builtins":
            continue  # the built-ins are risky by identity (RISKY_BUILTINS), not as a module
        if origin == "torch._C" or origin.startswith("torch._C."):
            # torch's core: the public API's C functions live there (torch.nn.functional.linear is
            # torch._C._nn.linear); only the C halves of the risky families count
            if any(origin.startswith(f) for f in RISKY_FAMILIES if f.startswith("torch._C.")):
                return origin
            continue
        for family in families:
            if origin == family or origin.startswith(family + ".") \
                    or family.startswith("torch._C._") and origin.startswith(family):
                return origin
    return None


def _public(name: str) -> bool:
    from kernelgym.judge.guards import ALLOWED_PRIVATE_NAMES

    return name.isidentifier() and (not name.startswith("_") or name in ALLOWED_PRIVATE_NAMES)


def _names(obj) -> list[str]:
    """The public attribute names of ``obj`` to walk, read statically (no ``__dir__`` or ``__getattr__`` runs)."""
    from kernelgym.judge.reach import _importable_here

    names = set()
    if isinstance(obj, types.ModuleType):
        names |= {n for n in vars(obj) if _public(n)}
        try:
            search = inspect.getattr_static(obj, "__path__")
        except AttributeError:
            search = []
        for info in pkgutil.iter_modules(list(search) if isinstance(search, (list, tuple)) else []):
            if _public(info.name) and _importable_here(f"{obj.__name__}.{info.name}") is None:
                names.add(info.name)
        return sorted(names)
    klass = obj if isinstance(obj, type) else type(obj)
    for k in getattr(klass, "__mro__", (klass,)):
        if k is object or k is type:
            continue
        try:
            names |= {n for n in vars(k) if isinstance(n, str) and _public(n)}
        except TypeError:
            pass
    if not isinstance(obj, type):
        try:
            own = inspect.getattr_static(obj, "__dict__")
            if isinstance(own, dict):
                names |= {n for n in own if isinstance(n, str) and _public(n)}
        except AttributeError:
            pass
    return sorted(names)


#: values not worth walking into: their attributes are the types' own
LEAVES = (str, bytes, int, float, complex, bool, type(None), tuple, list, dict, set, frozenset)


def survey(roots: list[str], depth: int, native: bool, verbose: bool = False) -> tuple[list, collections.Counter]:
    from kernelgym.judge import reach

    origins = Origins()
    verdicts: dict[int, str | None] = {}
    keep = []  # objects whose id is remembered, kept alive
    findings = []
    stats = collections.Counter()
    seen: set[int] = set()
    queue = collections.deque()
    for root in roots:
        if reach._forbidden_module(root):
            continue
        try:
            module = importlib.import_module(root)
        except Exception:  # noqa: BLE001, S112 - a root missing here: nothing to walk
            continue
        seen.add(id(module))
        queue.append((root, module, 0))
    while queue:
        path, obj, level = queue.popleft()
        parts = path.split(".")
        for name in _names(obj):
            child_path = f"{path}.{name}"
            stats["paths"] += 1
            child_parts = parts + [name]
            if isinstance(obj, types.ModuleType) and not reach._has_static(obj, name) \
                    and reach._forbidden_module(child_path, native):
                stats["refused_by_name"] += 1
                continue
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    child = reach._step(obj, child_parts, len(child_parts) - 1)
            except reach.NotImportedHere:
                stats["not_imported"] += 1
                continue
            except BaseException:  # noqa: BLE001 - an import that fails here (a missing optional dependency)
                stats["unresolved"] += 1
                continue
            key = id(child)
            if key not in verdicts:
                try:
                    verdicts[key] = reach._judge_value(child, native)
                except Exception as exc:  # noqa: BLE001
                    verdicts[key] = None
                    stats["judge_error"] += 1
                    if verbose:
                        print(f"judge error at {child_path}: {exc!r}", file=sys.stderr)
                keep.append(child)
            if verdicts[key] is not None:
                stats["refused"] += 1
                continue
            code_like = isinstance(child, (staticmethod, classmethod, property, functools.partialmethod))
            if (callable(child) or code_like) and not isinstance(child, types.ModuleType):
                stats["callables_passed"] += 1
                why = _risky(origins.of(child), native)
                if why is not None:
                    confirmed = reach.forbidden_reach.__wrapped__(child_path, native)
                    if confirmed is None:
                        findings.append((child_path, why, child))
            if level + 1 < depth and key not in seen and not isinstance(child, LEAVES):
                seen.add(key)
                queue.append((child_path, child, level + 1))
    return findings, stats


def main() -> int:
    from kernelgym.judge.guards import ALLOWED_MODULES

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--native", action="store_true", help="judge as for a CUDA candidate")
    parser.add_argument("--roots", default=",".join(sorted(ALLOWED_MODULES)))
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    start = time.perf_counter()
    findings, stats = survey(args.roots.split(","), args.depth, args.native, args.verbose)
    by_value = collections.defaultdict(list)
    for path, why, value in findings:
        by_value[(id(value), why)].append(path)
    for (_, why), paths in sorted(by_value.items(), key=lambda kv: kv[1][0]):
        print(f"FINDING {paths[0]}  <- {why}" + (f"  (also {len(paths) - 1} other paths)" if len(paths) > 1 else ""))
    print(f"{len(findings)} finding paths, {len(by_value)} distinct values; {dict(stats)}; "
          f"{time.perf_counter() - start:.0f} s", file=sys.stderr)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
