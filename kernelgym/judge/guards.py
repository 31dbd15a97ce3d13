"""Static anti-hack guards: reading the candidate's source before anything runs (trusted side).

Each check returns flags ``(name, reason)``; any flag rejects the candidate (status ``rejected``). The checks are
a first line only: every class they target is also defended at run time (process isolation, fresh inputs,
trusted-side comparison, device-wide synchronisation), since source can be obfuscated. docs/SECURITY.md lists
what each check catches and its known limits.

The text checked is the text that runs: the worker compiles the request's very string (``compile(source)``), not a
file, so no decoding step lies between the two. Three things could still make other readers of that text see
different code, and are flagged before parsing:

* ``encoding_declaration``: a PEP 263 coding line (``# -*- coding: utf-7 -*-``) other than UTF-8. ``ast.parse`` and
  ``compile`` ignore it on a ``str``, but anything that imports or reads the candidate's file as bytes honours it,
  and utf-7 or a rot13-like codec turns comments into code.
* ``line_break_mismatch``: characters that ``str.splitlines`` treats as line breaks but Python's tokenizer does not
  (``\\v \\f \\x1c-\\x1e \\x85 U+2028 U+2029``). The worker seeds ``linecache`` with ``source.splitlines()`` and
  Triton reads a kernel's text with ``inspect.getsource``, which indexes those lines by the compiled line number:
  each extra break shifts the lines, so Triton would compile a kernel hidden in a string above the real one.
* ``hidden_character``: NUL (the text would not parse) and U+FEFF (an invisible character no kernel needs).

Then, on the syntax tree:

* ``too_complex``: syntax nested deeper than :data:`MAX_NESTING` or larger than :data:`MAX_PATH_LENGTH`; no other
  check reads it (they recurse, and some walk each node's subtree).

* ``forbidden_import``: modules a kernel never needs (escape, spawn, patch, introspect, rebuild or decode code), by
  any part of the dotted name (``from torch import sys``, ``import torch.library``), and names imported from
  anywhere that are forbidden attributes or hooks (``from torch.cuda import Stream``).
* ``forbidden_module_alias``: an attribute named after such a module reaches it through an allowed one
  (``torch.sys.modules``, ``np.os.system``, ``triton.runtime.jit.inspect``, ``torch._C``, ``torch.library``).
* ``forbidden_call`` / ``forbidden_attribute``: dynamic code, reflection, streams, graphs, processes, exits.
* ``forbidden_hook``: hooks, torch function/dispatch modes and finalizers, each a way to run code when the judge
  calls the model, reads an output or drops an object (``register_forward_hook``, ``Tensor.register_hook``,
  ``TorchDispatchMode``, ``_DisableTorchDispatch``, private ``_register_*`` registries, a ``__torch_function__``,
  ``__torch_dispatch__`` or ``__del__`` method).
* ``torch_fallback``, ``global_state``, ``try_fallback``, ``reference_reuse``, ``monkeypatch``, ``no_kernel``,
  ``forbidden_cuda``: the candidate must do the work in its own kernels, every call, without patching anything.
"""

from __future__ import annotations

import ast
import re
import symtable

from kernelgym.judge import policy
from kernelgym.parsing import parse

#: Modules a kernel never needs; importing them is how candidates escape, spawn, patch or hide work.
FORBIDDEN_MODULES = {
    "os", "sys", "subprocess", "multiprocessing", "threading", "_thread", "concurrent", "asyncio", "socket",
    "ctypes", "cffi", "signal", "gc", "inspect", "importlib", "pickle", "marshal", "shutil", "pathlib", "builtins",
    "resource", "pty", "mmap", "tempfile", "io", "atexit", "weakref", "sysconfig", "urllib", "http", "requests",
    "kernelgym", "torch._dynamo", "torch._inductor", "torch.multiprocessing", "unittest", "code", "runpy",
    # their C twins, and what rebuilds, finds or decodes code: operator.attrgetter/methodcaller are getattr,
    # types.FunctionType builds functions from code objects, linecache is what Triton reads kernels from
    "posix", "_posixsubprocess", "_thread", "_ctypes", "_signal", "_imp", "_io", "_pickle", "_operator", "operator",
    "types", "copyreg", "dis", "traceback", "linecache", "tokenize", "codecs", "zipimport", "site", "faulthandler",
    "tracemalloc",
    # torch internals that register operators, override or intercept dispatch, fake tensors, or fetch code
    "torch._C", "torch.library", "torch.overrides", "torch.utils._python_dispatch", "torch._subclasses", "torch.hub",
    # torch and Triton parts that generate and exec Python, unpickle, or compile and load native code from a string
    "torch.fx", "torch.package", "triton.backends", "triton.runtime.build",
}
#: The only top-level modules a candidate may import (a submodule too, unless it is forbidden above). Everything
#: else is refused whatever it is: the standard library is full of modules that turn a string into code or an
#: object (``string.Formatter().get_field`` is getattr on a dotted string, ``timeit`` and ``cProfile`` run code
#: strings, ``pkgutil.resolve_name`` imports, ``logging.config`` builds objects by name), and a denylist of them
#: was found leaking by a red-team helper (2026-12-05).
ALLOWED_MODULES = {
    "torch", "triton", "numpy", "math", "cmath", "numbers", "typing", "functools", "itertools", "collections",
    "dataclasses", "enum", "abc", "copy", "random", "statistics", "fractions", "decimal", "heapq", "bisect",
    "time", "warnings", "__future__",
}
#: The last part of each forbidden module's name, and ``modules`` (``sys.modules``): as an attribute
#: (``torch.sys``, ``np.os``, ``triton.runtime.jit.inspect``) or any part of an import, it reaches that module
#: through an allowed one. None of these names is an attribute that kernel code needs.
MODULE_ALIASES = {m.rsplit(".", 1)[-1] for m in FORBIDDEN_MODULES} | {"modules"}
#: Built-in callables that execute or reach code or state indirectly.
FORBIDDEN_CALLS = {"eval", "exec", "compile", "__import__", "globals", "locals", "vars", "open", "setattr",
                   "delattr", "getattr", "breakpoint", "input", "memoryview"}
#: Attribute names that reach interpreter internals, patch dispatch, or fake tensors.
FORBIDDEN_ATTRS = {
    "__class__", "__subclasses__", "__globals__", "__builtins__", "__dict__", "__code__", "__closure__",
    "__torch_function__", "__torch_dispatch__", "_make_subclass", "as_subclass", "__bases__", "__mro__",
    "__getattribute__", "__setattr__", "__import__", "_make_wrapper_subclass", "__reduce__", "f_globals",
    "f_locals", "f_back",
    "Stream", "stream", "ExternalStream", "set_stream", "current_stream", "Event", "Graph", "CUDAGraph", "graph",
    "Thread", "Process", "Pool", "fork", "_fork", "system", "popen", "kill", "exit", "_exit", "abort",
    "cudaAccessPolicyWindow", "set_per_process_memory_fraction",
    # frames and what holds them: a frame's builtins, globals and callers are the worker's
    "_getframe", "f_builtins", "f_code", "f_trace", "tb_frame", "tb_next", "gi_frame", "cr_frame", "ag_frame",
    # strings turned into code or objects by allowed modules: typing evaluates string annotations with eval(),
    # numpy reads and writes raw memory past a buffer
    "get_type_hints", "ForwardRef", "_eval_type", "evaluate_forward_ref", "get_field", "Formatter",
    "stride_tricks", "ctypeslib", "f2py", "distutils",
    # native code loaded or built from a string (CUDA candidates build theirs with load_inline, see _check_backend)
    "load_library", "compile_module_from_src",
    # thread pools of any size (an idle OpenMP pool held most of the host's process ids) and Triton's cache writer,
    # which writes files at any path it is given
    "set_num_threads", "set_num_interop_threads", "FileCacheManager",
    # a JITFunction's globals and built-ins, by name
    "get_capture_scope",
    # a class's bases in order: torch.Tensor.mro()[1] is torch's C base class, whose methods are not the ones the
    # worker wraps to count host reads, and which the reach rules refuse by name (an eleventh red-team helper)
    "mro",
    # a class built from a namespace given as data (dunders as computed keys: a tensor subclass with its own
    # __torch_function__, a red-team helper, 2026-12-06), as type(name, bases, ns) is refused below
    "make_dataclass",
    # files by path: numpy's and torch's readers and writers reach any path the worker can, its own descriptors
    # under /proc/self/fd among them (a red-team helper wrote forged frames into the result channel with
    # savetxt and read the runner's commands with genfromtxt, 2026-12-06); a kernel reads and writes tensors
    "savetxt", "loadtxt", "genfromtxt", "fromregex", "fromfile", "tofile", "memmap", "open_memmap", "savez",
    "savez_compressed", "save", "DataSource", "npyio", "from_file",
}


def _introspection_attributes() -> frozenset:
    """The attribute names of code, frame, generator, coroutine, traceback, function and cell objects that no
    ordinary value has (``gi_code``, ``co_names``, ``tb_frame``, ``cell_contents``, ...): with them a code object is
    taken, renamed (``code.replace``) and rebuilt into a function whose names the rules never read (a fourth
    red-team helper, 2026-12-05). Computed from the types themselves, so a new attribute of a new Python is in."""
    import types

    import torch

    own = set()
    for kind in (types.CodeType, types.FrameType, types.GeneratorType, types.CoroutineType,
                 types.AsyncGeneratorType, types.TracebackType, types.FunctionType, types.MethodType,
                 types.CellType, types.BuiltinFunctionType):
        own |= set(dir(kind))
    ordinary = set()
    for kind in (object, type, str, bytes, list, dict, tuple, set, int, float, complex, torch.Tensor,
                 torch.nn.Module):
        ordinary |= set(dir(kind))
    return frozenset(name for name in own - ordinary if not name.startswith("__"))


#: Attribute names only interpreter objects have (:func:`_introspection_attributes`), refused like FORBIDDEN_ATTRS.
INTROSPECTION_ATTRS = _introspection_attributes()
#: Dunder attributes kernel code may use (``super().__init__()``); any other, read or defined, reaches the
#: interpreter's machinery (``len.__self__`` is the builtins module, ``__reduce_ex__`` runs at pickling, ...).
ALLOWED_DUNDER_ATTRS = {"__init__", "__name__", "__qualname__", "__doc__"}
#: Dunder attributes kernel code may read but never write: a package's version string (``triton.__version__``
#: to pick a code path). Written (``torch.__version__ = ...``, ``self.__version__ = ...``) it stays refused.
READABLE_DUNDER_ATTRS = {"__version__"}
#: dunder names a candidate may use as plain names (``if __name__ == "__main__":``)
ALLOWED_DUNDER_NAMES = {"__name__", "__doc__"}
#: Dunder methods a candidate's classes may define: construction, printing, container and context protocols.
#: Others are called by the interpreter or libraries on their own (pickling, formatting, attribute lookup,
#: subclassing, descriptors).
ALLOWED_DUNDER_METHODS = {"__init__", "__post_init__", "__repr__", "__str__", "__len__", "__iter__", "__next__",
                          "__getitem__", "__contains__", "__enter__", "__exit__", "__call__"}
#: Private helpers of torch's that honest code uses: convolution code imports ``from torch.nn.modules.utils import
#: _pair``, and ``nn.Linear``'s own init code computes its bound with ``nn.init._calculate_fan_in_and_fan_out`` (a
#: pure function of a tensor's shape); every other private name of a module is refused
#: (:func:`_check_private_attributes`). The reach rules still judge what the name resolves to.
ALLOWED_PRIVATE_NAMES = {"_pair", "_single", "_triple", "_quadruple", "_ntuple", "_calculate_fan_in_and_fan_out"}
#: Keyword arguments that make a loader unpickle, which runs whatever callable the data names.
PICKLE_KEYWORDS = {"weights_only", "allow_pickle", "pickle_module"}
#: Attribute names that install code to run later: module/tensor/autograd hooks (also the ``_forward_hooks`` dicts
#: themselves), torch function and dispatch modes and their switches, private ``_register_*`` registries (the
#: public ``register_buffer``/``register_parameter`` stay allowed), and the interpreter's trace/except hooks.
HOOK_ATTR = re.compile(r"hook|torch_?(function|dispatch)|python_?dispatch|^_register_|^_(push|pop)_mode|"
                       r"^(settrace|setprofile)$", re.IGNORECASE)
#: Methods that torch or the interpreter call on their own: when the judge runs an op on an output, or drops it.
HOOK_METHODS = {"__torch_function__", "__torch_dispatch__", "__del__"}
#: Characters ``str.splitlines`` (so ``linecache``, so Triton's ``inspect.getsource``) breaks lines on, Python not.
SPLITLINES_ONLY = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
#: A PEP 263 coding declaration, honoured on the first two lines.
CODING_LINE = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
#: torch functions that do the main work of typical tasks: calling them is a torch fallback.
TORCH_COMPUTE = {
    "matmul", "mm", "bmm", "addmm", "addbmm", "baddbmm", "einsum", "tensordot", "mv", "dot", "inner", "outer",
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "linear", "bilinear",
    "softmax", "log_softmax", "layer_norm", "group_norm", "batch_norm", "instance_norm", "rms_norm", "normalize",
    "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d", "adaptive_avg_pool2d",
    "adaptive_max_pool2d", "cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "kl_div",
    "scaled_dot_product_attention", "multi_head_attention_forward", "lstm", "gru", "rnn_tanh", "cumsum",
    "cumprod", "topk", "sort", "argsort", "compile", "chain_matmul", "linalg", "fft", "cdist", "grid_sample",
    "interpolate", "embedding", "embedding_bag", "unfold", "fold", "cholesky", "solve", "triangular_solve",
}
_TORCH_MODULE_NAMES = {"torch", "F", "nn", "functional", "linalg", "special", "fft", "ops", "aten"}
_NN_CONTAINERS = {"Parameter", "ParameterList", "ParameterDict", "ModuleList", "ModuleDict", "Identity"}

#: C++/CUDA text that escapes the process or hides work (a hard rule under every torch policy). Exiting or raising
#: in host code is ordinary error handling, not listed: a worker that exits is caught at run time (``crashed``).
#: ``dlsym`` and the other process starters were added by an eighteenth red-team helper (a function pointer from
#: ``dlsym`` reaches any library function by a string; a text regex is a first line only, docs/SECURITY.md).
CUDA_FORBIDDEN = re.compile(
    r"\b(std::thread|pthread_create|fork|vfork|system|popen|exec[lv]p?e?|execveat|fexecve|posix_spawnp?|syscall|"
    r"cudaStreamCreate\w*|cudaAccessPolicyWindow|cudaStreamSetAttribute|dlopen|dlmopen|dlv?sym|kill)\s*[(:]")
#: C++/CUDA text that calls library compute: a torch fallback, rejected under the ``strict`` policy only.
#: Besides the functions, the same operators as tensor methods (``a.matmul(b)``) and through ``at::_ops``
#: (an eighteenth red-team helper: both passed under ``strict``).
CUDA_LIBRARY_COMPUTE = re.compile(
    r"(\b(?:cublas\w*|cudnn\w*|cutlass|at::(?:_ops::)?(?:matmul|mm|bmm|addmm|baddbmm|conv\w*|linear|\w*softmax|"
    r"einsum|native)|torch::(?:matmul|mm|bmm|addmm|conv\w*|linear|softmax|einsum|nn))|"
    r"\.(?:matmul|mm|bmm|addmm|baddbmm|conv[123]d|convolution|linear|softmax|log_softmax|einsum))\s*[(:]")


def _flag(flags: list, name: str, reason: str) -> None:
    if not any(f[0] == name and f[1] == reason for f in flags):
        flags.append((name, reason))


def _dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


#: flags that say the text is broken rather than a trick: alone, they are a ``compile_error`` (the runner's static
#: stage), as the NameError they stand for would have been
BROKEN_TEXT_FLAGS = {"unbound_name"}


def check_source(source: str, backend: str = "triton", torch_policy: str = "strict") -> list[tuple[str, str]]:
    """Return the static flags for ``source`` under ``torch_policy`` (:mod:`kernelgym.judge.policy`: the
    ``torch_fallback`` flags apply under ``strict`` only); an empty list means the static stage passes.

    Raises ``SyntaxError`` when the text is not Python (the caller reports it as a compile error).
    """
    return [f for f in _all_flags(source, backend) if policy.applies(f[0], torch_policy)]


#: the deepest nesting of syntax a candidate may have (the bundled solutions' deepest is 15): the checks below
#: unparse and walk text by recursion, and a red-team helper's 500-term string annotation overflowed the
#: interpreter's stack in the runner (a judge fault, 2026-12-06)
MAX_NESTING = 100
#: the most syntax the checks read, as the sum over the tree's nodes of their depth (what checks that walk each
#: node's subtree cost; the bundled solutions' largest is 18487): a red-team helper's 34 lines of 2800-deep
#: attribute chains took 60 s of the runner's thread, 1500 lambdas of 58-term sums 16 s (2026-12-06); at this bound
#: the worst found takes about a second
MAX_PATH_LENGTH = 200_000


def syntax_size(tree: ast.AST) -> tuple[int, int]:
    """``(deepest, path length)`` of ``tree``'s syntax: the deepest path to a leaf and the sum of every node's depth,
    walked without recursion."""
    deepest = total = 0
    pending = [(tree, 1)]
    while pending:
        node, depth = pending.pop()
        deepest, total = max(deepest, depth), total + depth
        pending.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest, total


def _too_complex(tree: ast.AST, flags: list) -> bool:
    """Flag ``too_complex`` where ``tree`` nests deeper than :data:`MAX_NESTING` or holds more syntax than
    :data:`MAX_PATH_LENGTH`: the other checks are not run on it (they would overflow the stack or take too long)."""
    deepest, total = syntax_size(tree)
    if deepest > MAX_NESTING:
        _flag(flags, "too_complex", f"nests its syntax {deepest} levels deep, beyond the {MAX_NESTING} the static "
                                    f"checks read (no kernel needs that)")
    elif total > MAX_PATH_LENGTH:
        _flag(flags, "too_complex", f"holds more syntax than the static checks read (its nodes' depths sum to "
                                    f"{total}, beyond {MAX_PATH_LENGTH}; the bundled solutions' largest is 18487)")
    return deepest > MAX_NESTING or total > MAX_PATH_LENGTH


def _all_flags(source: str, backend: str) -> list[tuple[str, str]]:
    flags: list[tuple[str, str]] = []
    _check_text(source, flags)
    if "\0" in source:
        return flags  # not parseable: what the tokenizer would make of it is moot
    tree = parse(source)
    if _too_complex(tree, flags):
        return flags  # the checks below would take too long, or overflow the stack
    # names the text itself reads (strings checked as code below may name what a forward reference would)
    _check_free_names(source, tree, flags)
    annotations = _string_annotations(tree)
    if annotations:  # evaluated as code by whoever asks for the type hints (functools.singledispatch does)
        try:
            tree = parse(source + "\n" + "\n".join(f"({text})" for text in annotations))
        except SyntaxError:
            _flag(flags, "forbidden_annotation", "has a string annotation that is not a Python expression")
        else:
            if _too_complex(tree, flags):
                return flags
            source = ast.unparse(tree)
    if _getattr_as_attributes(source, tree):  # getattr(obj, "name"): judged below as obj.name
        source = ast.unparse(tree)
    _check_imports(tree, flags)
    _check_builtin_references(source, flags)
    _check_calls_and_attrs(tree, flags)
    _check_super(tree, flags)
    _check_private_attributes(tree, flags)
    _check_namespaces(tree, flags)
    _check_reach(tree, backend, flags)
    _check_aliases_and_hooks(tree, flags)
    _check_bindings(source, tree, flags)
    _check_annotations(tree, flags)
    _check_structure(tree, flags)
    _check_monkeypatching(tree, flags)
    _check_backend(tree, source, backend, flags)
    return flags


def _string_annotations(tree: ast.Module) -> list[str]:
    """The annotations written as strings, and strings in subscripts (``typing.List["..."]``, a forward reference
    once inside an annotation): the interpreter keeps them as text, and ``typing.get_type_hints`` (also through
    ``functools.singledispatch``) evaluates them in the module's globals, so they are checked as code."""
    found = []
    for node in ast.walk(tree):
        notes = []
        if isinstance(node, ast.arg):
            notes = [node.annotation]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            notes = [node.returns]
        elif isinstance(node, ast.AnnAssign):
            notes = [node.annotation]
        elif isinstance(node, ast.Subscript):  # typing.List["..."], list["..."]: a string there is a forward reference
            notes = [node.slice]
        for note in notes:
            for sub in ast.walk(note) if note is not None else ():
                if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                    if isinstance(node, ast.Subscript) and not _is_expression(sub.value):
                        continue  # a dict key like "block size": never evaluated as a type
                    found.append(sub.value)
    return found


def _is_expression(text: str) -> bool:
    try:
        ast.parse(f"({text})", mode="eval")
    except SyntaxError:
        return False
    return True


def _is_literal_attribute_name(node: ast.AST) -> bool:
    """Whether ``node`` is a string constant that is a public attribute name as written in code: an ASCII identifier
    (no NFKC folding between the text and the name looked up), not a keyword, not private or dunder."""
    import keyword

    return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isascii() \
        and node.value.isidentifier() and not keyword.iskeyword(node.value) and not node.value.startswith("_")


def _is_constant_default(node: ast.AST) -> bool:
    """A constant (``None``, ``-1.0``, ``"fast"``): nothing in it names or runs anything."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
        return isinstance(node, ast.Constant) and type(node.value) in (int, float, complex)
    return isinstance(node, ast.Constant)


def _getattr_as_attributes(source: str, tree: ast.Module) -> bool:
    """Rewrite, in ``tree``, each call ``getattr(obj, "name")`` and ``getattr(obj, "name", default)`` of the built-in
    to ``obj.name``, so that every later rule (attribute, private, hook, reach, monkeypatch, torch-compute) judges it
    as the attribute it reads; returns whether any was rewritten (the caller unparses the tree for the rules that
    read the text). Only the exact shape: the built-in called by its own name (no scope of the text binds
    ``getattr``), two or three positional arguments and no star or keyword, the name a public identifier written as
    a string constant (:func:`_is_literal_attribute_name`), the default a constant (:func:`_is_constant_default`).
    Anything else is left as it is, for the ``forbidden_call`` rules to refuse: a computed or private name,
    ``getattr`` aliased or passed around. The constants moved out of the call (the name, a default) are kept in
    the tree as statements at their own places, so the rules that read string constants (CUDA sources joined end
    to end) see the same strings."""
    if "getattr" not in source:
        return False
    for _, sym in _symbols(source)[1]:
        if sym.get_name() == "getattr" and (sym.is_assigned() or sym.is_imported() or sym.is_parameter()
                                            or sym.is_namespace() or sym.is_local()):
            return False  # the text's own getattr: its calls are not the built-in's
    moved: list[ast.AST] = []

    class Rewrite(ast.NodeTransformer):
        def visit_Call(self, node: ast.Call) -> ast.AST:
            self.generic_visit(node)
            args = node.args
            if isinstance(node.func, ast.Name) and node.func.id == "getattr" and not node.keywords \
                    and len(args) in (2, 3) and not any(isinstance(a, ast.Starred) for a in args) \
                    and _is_literal_attribute_name(args[1]) and (len(args) == 2 or _is_constant_default(args[2])):
                moved.extend(args[1:])
                return ast.copy_location(ast.Attribute(value=args[0], attr=args[1].value, ctx=ast.Load()), node)
            return node

    Rewrite().visit(tree)
    tree.body.extend(ast.copy_location(ast.Expr(value=constant), constant) for constant in moved)
    return bool(moved)


def _check_text(source: str, flags: list) -> None:
    """The string is what runs; these make readers of it other than ``compile`` see different code."""
    for line in re.split(r"\r\n|\r|\n", source, maxsplit=2)[:2]:
        match = CODING_LINE.match(line)
        if match and match.group(1).lower().replace("_", "-") not in ("utf-8", "utf8"):
            _flag(flags, "encoding_declaration", f"declares the source encoding {match.group(1)!r}: the file "
                                                 f"would decode to other code than the text checked; use UTF-8")
    match = SPLITLINES_ONLY.search(source)
    if match:
        _flag(flags, "line_break_mismatch", f"contains {match.group()!r}, a line break to str.splitlines but not to "
                                            f"Python: kernel source would be read from the wrong lines")
    for char, what in (("\0", "a NUL character"), ("\ufeff", "a byte-order mark (U+FEFF)")):
        if char in source:
            _flag(flags, "hidden_character", f"contains {what}: invisible characters are not allowed")


def _check_imports(tree: ast.Module, flags: list) -> None:
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                _flag(flags, "forbidden_import", "uses a relative import: a candidate is a file of its own")
                continue
            names = [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
        for name in names:
            parts = name.split(".")
            hit = next((p for p in parts if p in MODULE_ALIASES and p != "modules"), None)  # nn.modules.utils
            if hit:
                _flag(flags, "forbidden_import", f"imports {name!r}: kernels may not use {hit}")
            elif parts[0] not in ALLOWED_MODULES:
                _flag(flags, "forbidden_import", f"imports {name!r}: kernels may import only "
                                                 f"{', '.join(sorted(m for m in ALLOWED_MODULES if m[0] != '_'))}")
            elif isinstance(node, ast.ImportFrom) and name != (node.module or "") and parts[0] != "__future__" \
                    and (parts[-1] in FORBIDDEN_ATTRS or HOOK_ATTR.search(parts[-1]) or parts[-1] in FORBIDDEN_CALLS
                         or parts[-1].startswith("_") and parts[-1] not in ALLOWED_PRIVATE_NAMES):
                _flag(flags, "forbidden_import", f"imports {name!r}: a forbidden, private or hook attribute")
            elif parts[0] != "__future__" and any(p.startswith("_") for p in (
                    parts if isinstance(node, ast.Import) else (node.module or "").split("."))):
                # a private module on the way (torch._guards, whose Source.get_value evals a class attribute: a
                # sixth red-team helper); the attribute rule refuses torch._guards written as an attribute
                _flag(flags, "forbidden_import", f"imports {name!r}: private modules are not allowed")


def _symbols(source: str) -> tuple[set[str], list[tuple[str, object]]]:
    """The names the module binds at its top level (assignments, imports, ``def``/``class``), and every symbol of
    every scope as ``(kind, symbol)``: ``kind`` is ``"global_read"`` for a name read where the module's globals are
    what it finds (the top level, or a scope that does not bind it), else ``"other"``. Scopes are Python's own
    (:mod:`symtable`)."""
    top = symtable.symtable(source, "candidate.py", "exec")
    bound = {sym.get_name() for sym in top.get_symbols()
             if sym.is_assigned() or sym.is_imported() or sym.is_namespace()}
    found, todo = [], [top]
    while todo:
        table = todo.pop()
        todo.extend(table.get_children())
        for sym in table.get_symbols():
            read = sym.is_referenced() and (table is top or sym.is_global())
            found.append(("global_read" if read else "other", sym))
    return bound, found


def _check_builtin_references(source: str, flags: list) -> None:
    """Any reference to a forbidden built-in (:data:`FORBIDDEN_CALLS`), not only a call by its name: ``run = exec``,
    ``[eval][0](...)``, ``map(getattr, ...)`` and ``def f(g=getattr)`` reach it just as well. A name the candidate
    binds itself (a variable called ``input``) is not the built-in; scopes are Python's own (:mod:`symtable`)."""
    bound, symbols = _symbols(source)
    for kind, sym in symbols:
        name = sym.get_name()
        if kind == "global_read" and name in FORBIDDEN_CALLS and name not in bound:
            _flag(flags, "forbidden_call", f"uses {name}: dynamic code and attribute access are not allowed, "
                                           f"under any name")


def _check_aliases_and_hooks(tree: ast.Module, flags: list) -> None:
    bindings = _import_bindings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in MODULE_ALIASES \
                and not _dotted(node).endswith("nn.modules") \
                and not (node.attr == "modules" and _dotted(node).split(".")[0] in PRIVATE_ATTRIBUTE_OWNERS) \
                and not _is_torch_backends(node, bindings):
            # torch.nn.modules is the nn package itself; self.modules() is nn.Module's own (a module cannot be
            # held by self: _check_module_values); torch.backends (cudnn.is_available()) is judged by value in
            # _check_reach, and writes to it are monkeypatching
            _flag(flags, "forbidden_module_alias", f"uses {ast.unparse(node)[:80]}: reaches the forbidden module "
                                                   f"{node.attr!r} through another one")
        if isinstance(node, ast.Attribute) and HOOK_ATTR.search(node.attr):
            _flag(flags, "forbidden_hook", f"uses .{node.attr}: hooks and torch function/dispatch modes run code "
                                           f"when the judge calls the model or reads an output")
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in HOOK_METHODS:
            _flag(flags, "forbidden_hook", f"defines {node.name}: torch or the interpreter would call it when the "
                                           f"judge reads or drops an output")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _is_dunder(node.name) \
                and node.name not in ALLOWED_DUNDER_METHODS:
            _flag(flags, "forbidden_hook", f"defines {node.name}: the interpreter or a library would call it on its "
                                           f"own (allowed: {', '.join(sorted(ALLOWED_DUNDER_METHODS))})")


def _is_torch_backends(node: ast.Attribute, bindings: dict[str, str]) -> bool:
    """Whether ``node`` is ``torch.backends`` written from a name an import binds to ``torch`` (``torch.backends``,
    ``T.backends`` after ``import torch as T``): torch's backend switches and queries, not Triton's
    ``triton.backends`` the alias ``backends`` is listed for. What is reached through it is judged by value
    (:func:`_check_reach`, :func:`_check_module_values`) and any write to it is a ``monkeypatch``."""
    root, _, rest = _dotted(node).partition(".")
    return node.attr == "backends" and rest == "backends" and bindings.get(root) == "torch"


def _check_super(tree: ast.Module, flags: list) -> None:
    """``super`` only as ``super()`` or ``super(OwnClass, obj)``, ``OwnClass`` a class of the text's own:
    ``super(torch.Tensor, x).numpy()`` is torch's C base class's method, past the worker's wrapped ``numpy``
    (an eleventh red-team helper, 2026-12-06), and ``super`` as a value could be called so elsewhere."""
    own = {node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
    callees = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super":
            callees.add(id(node.func))
            args = node.args
            if node.keywords or (args and not (len(args) == 2 and isinstance(args[0], ast.Name)
                                                and args[0].id in own and isinstance(args[1], ast.Name))):
                _flag(flags, "forbidden_call", "calls super() with arguments other than one of its own classes "
                                               "and a name: super(torch.Tensor, x) reaches torch's C base class")
    if any(isinstance(n, ast.Name) and n.id == "super" and id(n) not in callees for n in ast.walk(tree)):
        _flag(flags, "forbidden_call", "uses super other than by calling it")


def _check_calls_and_attrs(tree: ast.Module, flags: list) -> None:
    # names bound by `from torch... import matmul [as mm]`: calling them is calling torch
    torch_names = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                   and (n.module or "").split(".")[0] == "torch" for a in n.names if a.name in TORCH_COMPUTE}
    # constructors may use torch to build parameters and buffers exactly as the reference does
    in_init = {id(sub) for fn in ast.walk(tree) if isinstance(fn, ast.FunctionDef) and fn.name == "__init__"
               for sub in ast.walk(fn)}
    # a self-test under `if __name__ == "__main__":` never runs in the judge (only the torch-compute rule is lifted)
    in_main = _main_block_nodes(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in FORBIDDEN_CALLS:
                _flag(flags, "forbidden_call", f"calls {func.id}(): dynamic code and attribute access are not allowed")
            for kw in node.keywords:  # a hard rule: in __init__ and a main block too
                if kw.arg in PICKLE_KEYWORDS:
                    _flag(flags, "forbidden_call", f"passes {kw.arg}=: unpickling runs whatever the data names")
            dotted = _dotted(func)
            head, _, last = dotted.rpartition(".")
            if id(node) in in_init or id(node) in in_main:
                continue  # the torch-compute rule only
            if (last in TORCH_COMPUTE and head and head.split(".")[0] in _TORCH_MODULE_NAMES) \
                    or (not head and last in torch_names):
                _flag(flags, "torch_fallback", f"calls {dotted}(): the main work must be done by your own "
                                               f"kernels, not by torch")
            if isinstance(func, ast.Attribute) and func.attr in {"matmul", "mm", "bmm", "addmm", "softmax",
                                                                 "log_softmax", "cumsum", "cumprod", "topk",
                                                                 "sort", "argsort", "conv2d"} \
                    and head.split(".")[0] not in {"tl", "triton"}:
                _flag(flags, "torch_fallback", f"calls .{func.attr}(): the main work must be done by your own kernels")
        elif isinstance(node, ast.Attribute) and node.attr in FORBIDDEN_ATTRS:
            _flag(flags, "forbidden_attribute", f"uses .{node.attr}: streams, graphs, processes, exits and "
                                                f"interpreter internals are not allowed")
        elif isinstance(node, ast.Attribute) and node.attr in INTROSPECTION_ATTRS:
            _flag(flags, "forbidden_attribute", f"uses .{node.attr}: attributes of code, frames, generators and "
                                                f"tracebacks reach the interpreter's machinery")
        elif isinstance(node, ast.Attribute) and _is_dunder(node.attr) and node.attr not in ALLOWED_DUNDER_ATTRS \
                and not (node.attr in READABLE_DUNDER_ATTRS and isinstance(node.ctx, ast.Load)):
            allowed = ", ".join(sorted(ALLOWED_DUNDER_ATTRS))
            _flag(flags, "forbidden_attribute", f"uses .{node.attr}: dunder attributes other than {allowed} reach "
                                                f"interpreter internals")
        elif isinstance(node, ast.Name) and node.id in ("__builtins__", "__import__", "__loader__", "__spec__"):
            _flag(flags, "forbidden_attribute", f"uses {node.id}")
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult) and id(node) not in in_main \
                and id(node) not in in_init:  # a constructor may build weights with @ as with torch.matmul
            _flag(flags, "torch_fallback", "uses the @ operator: matrix products must run in your own kernels")
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            _flag(flags, "global_state", "uses global/nonlocal state: outputs may not be cached across calls")


def _main_block_nodes(tree: ast.Module) -> set[int]:
    """The ``id`` of every node in the body of a top-level ``if __name__ == "__main__":`` (that exact test; its
    ``else`` is not included), when nothing in the text binds ``__name__`` (:func:`_binds_name`). The worker runs
    the text as a module named ``candidate`` (``types.ModuleType("candidate")``, kernelgym/judge/worker.py), so the
    block never runs there: a self-test in it does no work for the model. Empty when ``__name__`` is bound
    anywhere (``__name__ = "__main__"`` would run the block)."""
    blocks = [node for node in tree.body if isinstance(node, ast.If) and isinstance(node.test, ast.Compare)
              and isinstance(node.test.left, ast.Name) and node.test.left.id == "__name__"
              and len(node.test.ops) == 1 and isinstance(node.test.ops[0], ast.Eq)
              and len(node.test.comparators) == 1 and isinstance(node.test.comparators[0], ast.Constant)
              and node.test.comparators[0].value == "__main__" and isinstance(node.test.comparators[0].value, str)]
    if not blocks or _binds_name(tree, "__name__"):
        return set()
    return {id(sub) for block in blocks for statement in block.body for sub in ast.walk(statement)}


def _binds_name(tree: ast.Module, name: str) -> bool:
    """Whether ``name`` occurs in the tree other than as a plain read (a ``Name`` loaded), another object's attribute
    (``f.__name__``) or a string: any field of any node holding it (an assignment or deletion target, an import or
    ``as`` name, a ``def``/``class``/parameter/keyword/``except``/``global``/pattern name), whatever the Python."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Attribute, ast.Constant)) or isinstance(node, ast.Name) and isinstance(node.ctx,
                                                                                                       ast.Load):
            continue
        for _, value in ast.iter_fields(node):
            if value == name or isinstance(value, list) and name in value:
                return True
    return False


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


#: what a private attribute may be read on: the candidate's own objects in their methods
PRIVATE_ATTRIBUTE_OWNERS = {"self", "cls", "ctx"}


def _check_namespaces(tree: ast.Module, flags: list) -> None:
    """Classes built from a namespace given as data: ``type(name, bases, {"__annotations__": {CODE: int}})`` (then
    ``dataclasses`` executed CODE, a red-team finding), a dunder as a dict key or keyword, which defines what the
    dunder rules refuse to see written; and an ``__exit__`` that returns a value, which swallows the exception as a
    ``try`` would."""
    one_argument = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                    and n.func.id == "type" and len(n.args) == 1 and not n.keywords}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "type" and isinstance(node.ctx, ast.Load) \
                and id(node) not in one_argument:  # make = type; make(name, bases, ns) (a fifth red-team helper)
            _flag(flags, "forbidden_call", "uses type other than as type(x): classes are written as class "
                                           "statements")
        elif isinstance(node, ast.Dict) and any(isinstance(k, ast.Constant) and isinstance(k.value, str)
                                                and _is_dunder(k.value) for k in node.keys):
            _flag(flags, "forbidden_attribute", "uses a dunder name as a dict key: the interpreter's own names are "
                                                "not allowed")
        elif isinstance(node, ast.keyword) and node.arg and _is_dunder(node.arg):
            _flag(flags, "forbidden_attribute", f"passes {node.arg}=: the interpreter's own names are not allowed")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in ("__exit__", "__aexit__") \
                and any(isinstance(r, ast.Return) and r.value is not None
                        and not (isinstance(r.value, ast.Constant) and r.value.value in (None, False))
                        for r in ast.walk(node)):
            _flag(flags, "try_fallback", f"{node.name} returns a value: a context manager that swallows exceptions "
                                         f"is a try/except")


def _check_private_attributes(tree: ast.Module, flags: list) -> None:
    """A private attribute of anything but the candidate's own objects (``self._w``): libraries keep the modules
    they use under private names (``import sys as _sys``), out of the alias rule's sight, and a module rebound to
    another name (``c = collections; c._sys``) reaches them just as well. Dunder names as plain names
    (``__annotations__ = {...}`` in a class body: dataclasses pastes its keys into code it executes) likewise.
    ``self``, ``cls`` and ``ctx`` count only as a method's first parameter, never reassigned in it
    (:func:`_own_object_names`): a plain function's parameter named ``self`` is any object its caller passes."""
    own = _own_object_names(tree)
    exports = _export_list_targets(tree) | _slot_list_targets(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not _is_dunder(node.attr) \
                and node.attr not in ALLOWED_PRIVATE_NAMES \
                and not (isinstance(node.value, ast.Name) and id(node.value) in own):
            _flag(flags, "forbidden_attribute", f"uses {_dotted(node) or '.' + node.attr}: private attributes are "
                                                f"allowed on self only")
        elif isinstance(node, ast.Name) and _is_dunder(node.id) and node.id not in ALLOWED_DUNDER_NAMES \
                and id(node) not in exports:
            _flag(flags, "forbidden_attribute", f"uses the name {node.id}: the interpreter's own names are not allowed")


def _own_object_names(tree: ast.Module) -> set[int]:
    """The ``id`` of every ``Name`` node that reads a method's own first parameter, when that parameter is named
    ``self``, ``cls`` or ``ctx`` (:data:`PRIVATE_ATTRIBUTE_OWNERS`) and the method never binds the name again; reads
    in functions nested in the method count too, unless they bind the name themselves."""
    found: set[int] = set()

    def binds(fn, name: str) -> bool:
        params = fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs + [fn.args.vararg, fn.args.kwarg]
        return any(a is not None and a.arg == name for a in params) or any(
            isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load) for n in ast.walk(fn))

    def collect(node, name: str) -> None:  # the reads of ``name`` under node, into nested functions that keep it
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                if not isinstance(child, ast.ClassDef) and not binds(child, name):
                    collect(child, name)
            elif isinstance(child, ast.Name) and child.id == name:
                found.add(id(child))
            else:
                collect(child, name)

    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        for method in (n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
            params = method.args.posonlyargs + method.args.args
            if not params or params[0].arg not in PRIVATE_ATTRIBUTE_OWNERS:
                continue
            name = params[0].arg
            rebound = any(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
                          for n in ast.walk(method))
            if not rebound:
                collect(method, name)
    return found


def _import_bindings(tree: ast.Module) -> dict[str, str]:
    """Each name an import binds -> the dotted path it is bound to (``import a.b as x``: x -> a.b; ``import a.b``:
    a -> a; ``from a import b as c``: c -> a.b)."""
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                out[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and node.module != "__future__" and not node.level:
            for a in node.names:
                out[a.asname or a.name] = f"{node.module}.{a.name}"
    return out


def _check_reach(tree: ast.Module, backend: str, flags: list) -> None:
    """Every dotted name rooted at an import, resolved against the runner's own packages and judged by what it is
    (:mod:`kernelgym.judge.reach`): a public name of an allowed package can be another module or a foreign callable."""
    from kernelgym.judge.reach import forbidden_reach

    bindings = _import_bindings(tree)
    paths = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    paths |= set(bindings.values())
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            dotted = _dotted(node)
            root, _, rest = dotted.partition(".")
            if root in bindings and rest:
                paths.add(f"{bindings[root]}.{rest}")
    for path in sorted(paths):
        why = forbidden_reach(path, backend == "cuda")
        if why:
            _flag(flags, "forbidden_module_alias", f"uses {path}: it is {why}")
    _check_module_values(tree, bindings, flags)
    _check_private_overrides(tree, bindings, flags)


def _check_private_overrides(tree: ast.Module, bindings: dict[str, str], flags: list) -> None:
    """A class may not bind a private name that a library base class has: the library's own code reads it, as
    ``torch._guards.Source.get_value`` evals ``_name_template`` (a sixth red-team helper); ``nn.Module`` keeps
    its hooks and parameters under such names."""
    from kernelgym.judge.reach import names_a_class

    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        bases = []
        for base in node.bases:
            root, _, rest = _dotted(base).partition(".")
            if root in bindings:
                found = names_a_class(f"{bindings[root]}.{rest}" if rest else bindings[root])
                bases += [found] if found is not None else []
        own = set()
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                own.add(item.name)
            elif isinstance(item, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                for target in item.targets if isinstance(item, ast.Assign) else [item.target]:
                    own |= _bound_names(target)
        for name in sorted(n for n in own if n.startswith("_") and not _is_dunder(n)):
            base = next((b for b in bases if hasattr(b, name)), None)
            if base is not None:
                _flag(flags, "forbidden_hook", f"class {node.name} sets {name}, a private attribute of "
                                               f"{base.__qualname__} that its own code reads")


def _check_module_values(tree: ast.Module, bindings: dict[str, str], flags: list) -> None:
    """A module may only be named to reach into it (``torch.cuda.synchronize()``), never held as a value:
    ``pu = torch.autograd.profiler_util``, ``[torch][0]``, ``def f(m=torch)``, ``f(torch)`` would take it where
    :func:`_check_reach` no longer sees what is reached through it (``pu.attrgetter`` is ``operator.attrgetter``: a
    fourth red-team helper)."""
    from kernelgym.judge.reach import names_a_module

    bases = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load) and id(node) not in bases:
            dotted = _dotted(node)
            root, _, rest = dotted.partition(".")
            if root in bindings and names_a_module(f"{bindings[root]}.{rest}" if rest else bindings[root]):
                _flag(flags, "forbidden_module_alias", f"uses the module {dotted} as a value: a module may only be "
                                                       f"named to reach into it")


def _library_aliases(tree: ast.Module, bindings: dict[str, str]) -> set[str]:
    """Names bound (by ``=``, ``:=``, ``for``, ``with ... as`` or a comprehension, in any scope) from an expression
    that holds an imported name or a dotted name rooted at one without calling it: ``T = torch.Tensor``,
    ``for t in [torch.cuda]``. Their attributes are the library's."""
    roots = set(bindings)

    def uncalled_library_name(expr: ast.AST | None) -> bool:
        if expr is None:
            return False
        # whole dotted names only (not the base of a longer one), and not the function of a call
        skip = {id(n.func) for n in ast.walk(expr) if isinstance(n, ast.Call)} | \
            {id(n.value) for n in ast.walk(expr) if isinstance(n, ast.Attribute)}
        return any(isinstance(n, (ast.Name, ast.Attribute)) and id(n) not in skip
                   and _dotted(n).split(".")[0] in roots and isinstance(n.ctx, ast.Load) for n in ast.walk(expr))

    found: set[str] = set()
    while True:  # aliases of aliases
        for node in ast.walk(tree):
            pairs = []
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)):
                pairs = [(t, node.value) for t in (node.targets if isinstance(node, ast.Assign) else [node.target])]
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                pairs = [(node.target, node.iter)]
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                pairs = [(node.optional_vars, node.context_expr)]
            for target, value in pairs:
                if uncalled_library_name(value):
                    found |= _bound_names(target)
        if found <= roots:
            return found
        roots |= found


def _bound_names(target: ast.AST) -> set[str]:
    """The plain names an assignment target binds (``a``, ``a, *b``), not those it stores into (``self.x``)."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*(_bound_names(t) for t in target.elts))
    if isinstance(target, ast.Starred):
        return _bound_names(target.value)
    return set()


def _check_monkeypatching(tree: ast.Module, flags: list) -> None:
    """Assigning to or deleting an attribute of an imported name, or of a name bound to a library object without
    calling it (:func:`_library_aliases`: ``T = torch.Tensor; T.add = ...``, which a rule on imported names alone
    missed, a fourth red-team helper), is monkeypatching. The candidate's own objects (``self``, a descriptor it
    made) stay assignable. Modules cannot be aliased at all (:func:`_check_module_values`)."""
    bindings = _import_bindings(tree)
    roots = set(bindings) | _library_aliases(tree, bindings) | {"builtins"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
            root = node
            while isinstance(root, (ast.Attribute, ast.Subscript)):
                root = root.value
            if isinstance(root, ast.Name) and root.id in roots:
                _flag(flags, "monkeypatch", f"assigns to {ast.unparse(node)[:80]}: patching libraries is not allowed")


def _check_free_names(source: str, tree: ast.Module, flags: list) -> None:
    """Every name the candidate reads must be bound by its own module (an import, an assignment, a ``def`` or
    ``class``) or be a built-in: library code that writes into the module's namespace while it runs (Triton's CPU
    interpreter copies its own globals, ``inspect`` among them, into a kernel's module: a fifth red-team helper)
    would otherwise hand the candidate names no rule ever read. A ``*`` import binds names out of sight, so it is
    refused too."""
    import builtins

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            _flag(flags, "unbound_name", f"uses from {node.module} import *: import the names you use")
    bound, symbols = _symbols(source)
    known = bound | set(dir(builtins)) | ALLOWED_DUNDER_NAMES
    for kind, sym in symbols:
        if kind == "global_read" and sym.get_name() not in known:
            _flag(flags, "unbound_name", f"uses {sym.get_name()}, which the module never defines")


def _check_bindings(source: str, tree: ast.Module, flags: list) -> None:
    """Names bound where no ``ast.Name`` is written: a ``match`` statement's patterns read attributes whose names
    are plain strings (``case object(__self__=b)`` is ``len.__self__``) and bind names (``case __del__:`` in a class
    body defines a finalizer), so ``match`` is refused as a whole; and every symbol of every scope (:mod:`symtable`:
    imports ``as`` a name, parameters, class and function names, comprehension targets) must not be a dunder
    other than the allowed ones (``from functools import partial as __class_getitem__``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Match):
            _flag(flags, "forbidden_syntax", "uses a match statement: its patterns read attributes and bind names "
                                             "out of the rules' sight; use if/elif")
    allowed = ALLOWED_DUNDER_NAMES | ALLOWED_DUNDER_METHODS
    exports = _only_export_list(source, tree)
    slots = _only_slot_lists(source, tree)
    for _, sym in _symbols(source)[1]:
        name = sym.get_name()
        if name == "__class__" and sym.is_free():
            continue  # the cell super() reads: bound by the interpreter, not the candidate
        if name == "__all__" and exports:
            continue  # the module's list of exported names, a list of strings (:func:`_export_list_targets`)
        if name == "__slots__" and slots:
            continue  # a class's list of attribute names, a list of strings (:func:`_slot_list_targets`)
        if _is_dunder(name) and name not in allowed:
            _flag(flags, "forbidden_attribute", f"binds the name {name}: the interpreter's own names are not "
                                                f"allowed")


def _export_list_targets(tree: ast.Module) -> set[int]:
    """The ``id`` of each ``__all__`` that is the one target of a top-level ``__all__ = [...]`` (or a tuple) of
    string constants: the module's export list, data that only ``from candidate import *`` reads (nothing does)."""
    return {id(node.targets[0]) for node in tree.body
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == "__all__" and isinstance(node.value, (ast.List, ast.Tuple))
            and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.value.elts)}


def _slot_list_targets(tree: ast.Module) -> set[int]:
    """The ``id`` of each ``__slots__`` that is the one target of an assignment written directly in a class body,
    ``__slots__ = ("a", "_b")`` (or a list), every element a string constant that is an identifier not starting with
    ``__``: the names of the class's instance attributes, which Python turns into plain attribute descriptors (what
    ``self.a = ...`` writes anyway). A dunder or mangled name (``"__dict__"``, ``"__weakref__"``, ``"__class__"``)
    or anything but string constants stays refused."""
    return {id(stmt.targets[0]) for cls in ast.walk(tree) if isinstance(cls, ast.ClassDef) for stmt in cls.body
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
            and stmt.targets[0].id == "__slots__" and isinstance(stmt.value, (ast.List, ast.Tuple))
            and all(isinstance(e, ast.Constant) and isinstance(e.value, str) and e.value.isidentifier()
                    and not e.value.startswith("__") for e in stmt.value.elts)}


def _only_slot_lists(source: str, tree: ast.Module) -> bool:
    """Whether ``__slots__`` occurs in the text only as the target of slot lists (:func:`_slot_list_targets`): no
    read, no other assignment, no binding without a written name (an import ``as``, a ``def``, a parameter, an
    ``except ... as``, a ``global``), and bound in class scopes only (:mod:`symtable`)."""
    targets = _slot_list_targets(tree)
    if not targets or any(isinstance(n, ast.Name) and n.id == "__slots__" and id(n) not in targets
                          or isinstance(n, ast.ExceptHandler) and n.name == "__slots__" for n in ast.walk(tree)):
        return False
    todo = [symtable.symtable(source, "candidate.py", "exec")]
    while todo:
        table = todo.pop()
        todo.extend(table.get_children())
        if "__slots__" not in table.get_identifiers():
            continue
        sym = table.lookup("__slots__")
        if table.get_type() != "class" or sym.is_imported() or sym.is_parameter() or sym.is_namespace() \
                or sym.is_global() or sym.is_declared_global() or sym.is_nonlocal() or sym.is_free() \
                or sym.is_referenced():
            return False
    return True


def _only_export_list(source: str, tree: ast.Module) -> bool:
    """Whether ``__all__`` occurs in the text only as the target of export lists (:func:`_export_list_targets`): no
    read, no other assignment, no binding without a written name (an import ``as``, a ``def``, a parameter, an
    ``except ... as``) and no use in any inner scope (:mod:`symtable`)."""
    targets = _export_list_targets(tree)
    if not targets or any(isinstance(n, ast.Name) and n.id == "__all__" and id(n) not in targets
                          or isinstance(n, ast.ExceptHandler) and n.name == "__all__" for n in ast.walk(tree)):
        return False
    top = symtable.symtable(source, "candidate.py", "exec")
    sym = top.lookup("__all__")
    if sym.is_imported() or sym.is_parameter() or sym.is_namespace() or sym.is_declared_global():
        return False
    todo = list(top.get_children())
    while todo:
        table = todo.pop()
        if "__all__" in table.get_identifiers():
            return False
        todo.extend(table.get_children())
    return True


def _check_annotations(tree: ast.Module, flags: list) -> None:
    """An annotation names a type: no call in it, and no name that is assigned a value anywhere (``A = "code"``,
    then ``def f(x: A)``: ``typing.get_type_hints``, which ``functools.singledispatchmethod.register`` calls,
    evaluates the string A holds, a fifth red-team helper), except a type alias (:func:`_type_aliases`:
    ``Tensor = torch.Tensor``, ``Shape = Tuple[int, int]``), which holds what the annotation could have written
    itself. String annotations are checked as code elsewhere."""
    assigned: set[str] = set()
    values: dict[str, list] = {}  # name -> the value of each binding (None: not a plain assignment to the name)
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AugAssign, ast.NamedExpr, ast.For, ast.AsyncFor,
                                               ast.comprehension)) else \
            [node.target] if isinstance(node, ast.AnnAssign) and node.value is not None else \
            [node.optional_vars] if isinstance(node, ast.withitem) and node.optional_vars is not None else []
        for target in targets:
            assigned |= _bound_names(target)
            plain = isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(target, ast.Name)
            for name in _bound_names(target):
                values.setdefault(name, []).append(node.value if plain else None)
    aliases = _type_aliases(values, _import_bindings(tree), assigned)
    for node in ast.walk(tree):
        notes = [node.annotation] if isinstance(node, (ast.arg, ast.AnnAssign)) else \
            [node.returns] if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else []
        for note in notes:
            for sub in ast.walk(note) if note is not None else ():
                if isinstance(sub, ast.Call) or isinstance(sub, ast.Name) and sub.id in assigned - aliases:
                    _flag(flags, "forbidden_annotation", f"annotates with {ast.unparse(note)[:60]}: an annotation "
                                                         f"names a type, not a value computed at run time")


def _type_aliases(values: dict[str, list], bindings: dict[str, str], assigned: set[str]) -> set[str]:
    """The names whose every binding is a plain assignment (``=``, or annotated with a value) of a type expression:
    a name bound by an import and never assigned, a dotted name rooted at one (``torch.Tensor``), a built-in class
    the text never binds (``int``), another such alias, a subscript of these (``Tuple[int, int]``,
    ``Callable[[Tensor], None]``, ``None`` and ``...`` among its arguments) or a ``|`` of them. No call, no string
    constant (a string is what ``get_type_hints`` evaluates), no other built-in (``T = eval``), no other name."""
    import builtins

    def names_a_type(expr: ast.AST, aliases: set[str]) -> bool:
        if isinstance(expr, ast.Name):
            return expr.id in bindings and expr.id not in assigned or expr.id in aliases or (
                expr.id not in bindings and expr.id not in assigned and expr.id != "type"
                and isinstance(getattr(builtins, expr.id, None), type))
        if isinstance(expr, ast.Attribute):
            root = _dotted(expr).split(".")[0]
            return bool(root) and root in bindings and root not in assigned
        if isinstance(expr, ast.Subscript):
            return names_a_type(expr.value, aliases) and argument(expr.slice, aliases)
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
            return argument(expr.left, aliases) and argument(expr.right, aliases)
        return False

    def argument(expr: ast.AST, aliases: set[str]) -> bool:
        if isinstance(expr, (ast.Tuple, ast.List)):
            return all(argument(e, aliases) for e in expr.elts)
        if isinstance(expr, ast.Constant):
            return expr.value is None or expr.value is Ellipsis
        return names_a_type(expr, aliases)

    aliases: set[str] = set()
    while True:  # aliases of aliases
        found = {name for name, bound in values.items() if name not in bindings
                 and all(value is not None and names_a_type(value, aliases) for value in bound)}
        if found <= aliases:
            return aliases
        aliases |= found


def _check_structure(tree: ast.Module, flags: list) -> None:
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Try):
            _flag(flags, "try_fallback", "uses try/except: a fallback path could hide a failing kernel")
        if isinstance(node, ast.Name) and node.id == "Model":
            _flag(flags, "reference_reuse", "refers to the reference `Model`: reuse of the reference is not allowed")
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any((a.asname or a.name) == "Model" or a.name == "Model"
                                                                  for a in node.names):
            _flag(flags, "reference_reuse", "imports a `Model`: reuse of the reference is not allowed")
        if isinstance(node, ast.ClassDef) and node.name == "Model":
            _flag(flags, "reference_reuse", "defines a class named `Model`: the reference may not be copied")
    new = classes.get("ModelNew")
    if new is None:
        _flag(flags, "no_modelnew", "no top-level `class ModelNew`")
        return
    # submodules built in __init__ (nn.Linear, nn.Conv2d, ...) may hold parameters but may not be *called*
    modules: set[str] = set()
    for fn in (n for n in new.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"):
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                ctor = _dotted(node.value.func)
                if ctor.split(".")[0] in {"nn", "torch"} and ctor.split(".")[-1] not in _NN_CONTAINERS:
                    for target in node.targets:
                        if isinstance(target, ast.Attribute) and _dotted(target.value) == "self":
                            modules.add(target.attr)
    for fn in (n for n in ast.walk(new) if isinstance(n, ast.FunctionDef) and n.name != "__init__"):
        for node in ast.walk(fn):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and _dotted(node.func.value) == "self" and node.func.attr in modules:
                _flag(flags, "torch_fallback", f"calls the torch module self.{node.func.attr}(...) in "
                                               f"{fn.name}: use its parameters in your own kernel instead")


def _names_used(tree: ast.Module):
    """Every dotted name the source reads or imports (``torch.utils.cpp_extension.load_inline``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            yield _dotted(node) or node.attr
        elif isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            yield from (f"{node.module}.{a.name}" for a in node.names)


def _check_backend(tree: ast.Module, source: str, backend: str, flags: list) -> None:
    if backend == "triton":
        jitted = any(_dotted(d.func if isinstance(d, ast.Call) else d).endswith(("triton.jit", "jit"))
                     for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) for d in n.decorator_list)
        if not jitted:
            _flag(flags, "no_kernel", "defines no @triton.jit kernel: the triton backend needs one")
        if any("cpp_extension" in name or name.endswith("load_inline") for name in _names_used(tree)):
            _flag(flags, "forbidden_import", "uses torch.utils.cpp_extension: native code belongs to the cuda "
                                             "backend, a triton candidate's kernels are Triton")
    elif backend == "cuda":
        if "load_inline" not in source:
            _flag(flags, "no_kernel", "never calls torch.utils.cpp_extension.load_inline: the cuda backend needs it")
        if "__global__" not in source:
            _flag(flags, "no_kernel", "defines no __global__ CUDA kernel")
        constants = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)),
                           key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)))
        strings = [n.value for n in constants]
        # each string, and all of them end to end in the text's order: a name split over two strings joined at run
        # time (``"cub" + "lasSgemm("``) passed each string's check (an eighteenth red-team helper)
        for text in strings + ["".join(strings)]:
            match = CUDA_FORBIDDEN.search(text)
            if match:
                _flag(flags, "forbidden_cuda", f"CUDA source uses {match.group(1)}: threads, processes, "
                                               f"streams and cache-policy changes are not allowed")
            match = CUDA_LIBRARY_COMPUTE.search(text)
            if match:
                _flag(flags, "torch_fallback", f"CUDA source calls {match.group(1)}: library compute (allowed "
                                               f"under the partial and off torch policies)")
    else:
        raise ValueError(f"unknown backend {backend!r}; use 'triton' or 'cuda'")
