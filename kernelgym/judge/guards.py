"""Static anti-hack guards: reading the candidate's source before anything runs (trusted side).

Each check returns flags ``(name, reason)``; any flag rejects the candidate (status ``rejected``). The checks are
a first line only: every class they target is also defended at run time (process isolation, fresh inputs,
trusted-side comparison, device-wide synchronisation), since source can be obfuscated. docs/SECURITY.md lists
what each check catches and its known limits.
"""

from __future__ import annotations

import ast
import re

#: Modules a kernel never needs; importing them is how candidates escape, spawn, patch or hide work.
FORBIDDEN_MODULES = {
    "os", "sys", "subprocess", "multiprocessing", "threading", "_thread", "concurrent", "asyncio", "socket",
    "ctypes", "cffi", "signal", "gc", "inspect", "importlib", "pickle", "marshal", "shutil", "pathlib", "builtins",
    "resource", "pty", "mmap", "tempfile", "io", "atexit", "weakref", "sysconfig", "urllib", "http", "requests",
    "kernelgym", "torch._dynamo", "torch._inductor", "torch.multiprocessing", "unittest", "code", "runpy",
}
#: Built-in callables that execute or reach code or state indirectly.
FORBIDDEN_CALLS = {"eval", "exec", "compile", "__import__", "globals", "locals", "vars", "open", "setattr",
                   "delattr", "getattr", "breakpoint", "input", "memoryview"}
#: Attribute names that reach interpreter internals, patch dispatch, or fake tensors.
FORBIDDEN_ATTRS = {
    "__class__", "__subclasses__", "__globals__", "__builtins__", "__dict__", "__code__", "__closure__",
    "__torch_function__", "__torch_dispatch__", "_make_subclass", "as_subclass", "__bases__", "__mro__",
    "__getattribute__", "__setattr__", "__import__", "_C", "__reduce__", "f_globals", "f_locals", "f_back",
    "Stream", "stream", "ExternalStream", "set_stream", "current_stream", "Event", "Graph", "CUDAGraph", "graph",
    "Thread", "Process", "Pool", "fork", "system", "popen", "kill", "exit", "_exit", "abort",
    "cudaAccessPolicyWindow", "set_per_process_memory_fraction",
}
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

#: C++/CUDA text that calls library compute or escapes the process.
CUDA_FORBIDDEN = re.compile(
    r"\b(cublas\w*|cudnn\w*|cutlass|at::(matmul|mm|bmm|addmm|conv\w*|linear|softmax|einsum|native)|"
    r"torch::(matmul|mm|bmm|addmm|conv\w*|linear|softmax|einsum|nn)|std::thread|pthread_create|fork|system|"
    r"popen|exec[lv]p?e?|cudaStreamCreate\w*|cudaAccessPolicyWindow|cudaStreamSetAttribute|dlopen|kill|"
    r"raise|abort|exit|_exit)\s*[(:]")


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


def check_source(source: str, backend: str = "triton") -> list[tuple[str, str]]:
    """Return the static flags for ``source``; an empty list means the static stage passes.

    Raises ``SyntaxError`` when the text is not Python (the caller reports it as a compile error).
    """
    tree = ast.parse(source)
    flags: list[tuple[str, str]] = []
    _check_imports(tree, flags)
    _check_calls_and_attrs(tree, flags)
    _check_structure(tree, flags)
    _check_monkeypatching(tree, flags)
    _check_backend(tree, source, backend, flags)
    return flags


def _check_imports(tree: ast.Module, flags: list) -> None:
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
        for name in names:
            for forbidden in FORBIDDEN_MODULES:
                if name == forbidden or name.startswith(forbidden + "."):
                    _flag(flags, "forbidden_import", f"imports {name!r}: kernels may not use {forbidden}")


def _check_calls_and_attrs(tree: ast.Module, flags: list) -> None:
    # names bound by `from torch... import matmul [as mm]`: calling them is calling torch
    torch_names = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                   and (n.module or "").split(".")[0] == "torch" for a in n.names if a.name in TORCH_COMPUTE}
    # constructors may use torch to build parameters and buffers exactly as the reference does
    in_init = {id(sub) for fn in ast.walk(tree) if isinstance(fn, ast.FunctionDef) and fn.name == "__init__"
               for sub in ast.walk(fn)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in FORBIDDEN_CALLS:
                _flag(flags, "forbidden_call", f"calls {func.id}(): dynamic code and attribute access are not allowed")
            dotted = _dotted(func)
            head, _, last = dotted.rpartition(".")
            if id(node) in in_init:
                continue
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
        elif isinstance(node, ast.Name) and node.id in ("__builtins__", "__import__", "__loader__", "__spec__"):
            _flag(flags, "forbidden_attribute", f"uses {node.id}")
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            _flag(flags, "torch_fallback", "uses the @ operator: matrix products must run in your own kernels")
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            _flag(flags, "global_state", "uses global/nonlocal state: outputs may not be cached across calls")


_PATCHABLE_ROOTS = {"torch", "triton", "tl", "nn", "F", "time", "np", "numpy", "math", "builtins", "kernelgym"}


def _check_monkeypatching(tree: ast.Module, flags: list) -> None:
    """Assigning to an attribute of an imported module (``torch.cuda.synchronize = ...``) is monkeypatching."""
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        for target in targets:
            if isinstance(target, ast.Attribute):
                root = _dotted(target).split(".")[0]
                if root in _PATCHABLE_ROOTS:
                    _flag(flags, "monkeypatch", f"assigns to {_dotted(target)}: patching libraries is not allowed")


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


def _check_backend(tree: ast.Module, source: str, backend: str, flags: list) -> None:
    if backend == "triton":
        jitted = any(_dotted(d.func if isinstance(d, ast.Call) else d).endswith(("triton.jit", "jit"))
                     for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) for d in n.decorator_list)
        if not jitted:
            _flag(flags, "no_kernel", "defines no @triton.jit kernel: the triton backend needs one")
    elif backend == "cuda":
        if "load_inline" not in source:
            _flag(flags, "no_kernel", "never calls torch.utils.cpp_extension.load_inline: the cuda backend needs it")
        if "__global__" not in source:
            _flag(flags, "no_kernel", "defines no __global__ CUDA kernel")
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                match = CUDA_FORBIDDEN.search(node.value)
                if match:
                    _flag(flags, "forbidden_cuda", f"CUDA source uses {match.group(1)}: library compute, threads, "
                                                   f"processes and exits are not allowed")
    else:
        raise ValueError(f"unknown backend {backend!r}; use 'triton' or 'cuda'")
