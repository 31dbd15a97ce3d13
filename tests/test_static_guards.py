"""Static guards flag the tricks they target and leave honest kernels alone."""

from __future__ import annotations

import inspect
import linecache

import pytest

from conftest import GOOD, candidate
from kernelgym.judge.guards import check_source
from kernelgym.tasks import BUNDLED_TASKS

SOLUTIONS = sorted((BUNDLED_TASKS / "solutions").glob("*/*/*.py"))


def names(source, backend="triton"):
    return {name for name, _ in check_source(source, backend)}


def test_honest_kernel_has_no_flags():
    assert names(GOOD) == set()


@pytest.mark.parametrize("source, flag", [
    (candidate(imports="import os", pre="os.abort()"), "forbidden_import"),
    (candidate(imports="import sys", pre="sys.exit(0)"), "forbidden_import"),
    (candidate(pre="y0 = torch.matmul(x, x)"), "torch_fallback"),
    (candidate(pre="y0 = torch.nn.functional.relu(x) if False else x @ x"), "torch_fallback"),
    (candidate(imports="from torch import matmul as mm", pre="z = mm(x, x)"), "torch_fallback"),
    (candidate(pre="s = torch.cuda.Stream()"), "forbidden_attribute"),
    (candidate(pre="torch.cuda.Event.elapsed_time = lambda *a: 0.001"), "forbidden_attribute"),
    (candidate(pre="t = x.as_subclass(torch.Tensor)"), "forbidden_attribute"),
    (candidate(pre="f = eval('1')"), "forbidden_call"),
    (candidate(pre="global CACHE"), "global_state"),
    (candidate(pre="from reference import Model"), "reference_reuse"),
    (candidate(imports="import threading"), "forbidden_import"),
    (candidate(pre="fut = torch.jit._fork(torch.relu, x)"), "forbidden_attribute"),  # a native thread
    (candidate(imports="import ctypes"), "forbidden_import"),
    (candidate(pre="__import__('os').abort()"), "forbidden_call"),
])
def test_trick_is_flagged(source, flag):
    assert flag in names(source)


def test_try_except_fallback_is_flagged():
    source = GOOD.replace("        x = x.contiguous()", "        try:\n            x = x.contiguous()\n"
                                                        "        except Exception:\n            return x")
    assert "try_fallback" in names(source)


def test_calling_a_torch_submodule_is_flagged_but_reading_its_weight_is_not():
    base = GOOD.replace("        super().__init__()", "        super().__init__()\n        self.lin = nn.Linear(4, 4)")
    assert names(base.replace("        pass\n", "        w = self.lin.weight\n", 1)) == set()
    assert "torch_fallback" in names(base.replace("        pass\n", "        x = self.lin(x)\n", 1))


def test_backend_requirements():
    assert "no_kernel" in names("import torch\nclass ModelNew:\n    pass\n")
    cuda = ("from torch.utils.cpp_extension import load_inline\nsrc = '__global__ void k(float* x) {}'\n"
            "class ModelNew:\n    pass\n")
    assert names(cuda, "cuda") == set()
    assert "torch_fallback" in names(cuda.replace("{}", "{ cublasSgemm(h); }"), "cuda")  # library compute: strict


@pytest.mark.parametrize("source, flag", [
    (candidate(pre='torch.sys.modules["os"].abort()'), "forbidden_module_alias"),
    (candidate(imports="import numpy as np", pre='np.os.system("id")'), "forbidden_module_alias"),
    (candidate(pre="src = triton.runtime.jit.inspect.getsource(ModelNew)"), "forbidden_module_alias"),
    (candidate(pre="q = torch.multiprocessing.SimpleQueue()"), "forbidden_module_alias"),
    (candidate(pre="torch._C._set_grad_enabled(True)"), "forbidden_module_alias"),
    (candidate(pre='lib = torch.library.Library("aten", "IMPL")'), "forbidden_module_alias"),
    (candidate(pre="m = torch.utils._python_dispatch"), "forbidden_module_alias"),
    (candidate(pre="torch._dynamo.reset()"), "forbidden_module_alias"),
    (candidate(pre="m = torch.overrides"), "forbidden_module_alias"),
    (candidate(pre="f = triton.runtime.jit.types.FunctionType"), "forbidden_module_alias"),
    (candidate(pre='torch.nn.modules.module.sys.modules["os"]'), "forbidden_module_alias"),
    (candidate(imports="from torch import sys as s"), "forbidden_import"),
    (candidate(imports="from triton.runtime.jit import inspect"), "forbidden_import"),
    (candidate(imports="import torch._C as C"), "forbidden_import"),
    (candidate(imports="from torch.cuda import Stream"), "forbidden_import"),
    (candidate(imports="from operator import attrgetter"), "forbidden_import"),
    (candidate(imports="import types"), "forbidden_import"),
    (candidate(imports="import codecs"), "forbidden_import"),
    (candidate(imports="import linecache"), "forbidden_import"),
])
def test_forbidden_module_reached_through_an_allowed_one_is_flagged(source, flag):
    assert flag in names(source)


@pytest.mark.parametrize("source, flag", [
    (candidate(pre="self.register_forward_hook(lambda m, i, o: o)"), "forbidden_hook"),
    (candidate(pre="self.register_forward_pre_hook(lambda m, a: a)"), "forbidden_hook"),
    (candidate(pre="self.register_full_backward_hook(lambda m, gi, go: gi)"), "forbidden_hook"),
    (candidate(pre="x.register_hook(lambda g: g)"), "forbidden_hook"),
    (candidate(pre="torch.nn.modules.module.register_module_forward_hook(lambda m, i, o: o)"), "forbidden_hook"),
    (candidate(pre="self._forward_hooks[0] = lambda m, i, o: o"), "forbidden_hook"),
    (candidate(pre="torch.autograd.graph.saved_tensors_hooks(id, id).__enter__()"), "forbidden_hook"),
    (candidate(pre="Mode = torch.utils._python_dispatch.TorchDispatchMode"), "forbidden_hook"),
    (candidate(pre="Mode = torch.overrides.TorchFunctionMode"), "forbidden_hook"),
    (candidate(pre="torch._C._DisableTorchDispatch().__enter__()"), "forbidden_hook"),
    (candidate(imports="class Lazy(torch.Tensor):\n    def __torch_function__(self, *a):\n        pass"),
     "forbidden_hook"),
    (candidate(imports="class Later:\n    def __del__(self):\n        pass"), "forbidden_hook"),
    (candidate(imports="from torch.nn.modules.module import register_module_forward_hook"), "forbidden_import"),
])
def test_installing_a_hook_or_dispatch_mode_is_flagged(source, flag):
    assert flag in names(source)


@pytest.mark.parametrize("source, flag", [
    # a forbidden built-in reached without calling it by its name (found by a red-team helper, 2026-12-05)
    (candidate(pre="run = exec"), "forbidden_call"),
    (candidate(pre="[eval][0]('1')"), "forbidden_call"),
    (candidate(pre="f = list(map(getattr, [x], ['shape']))"), "forbidden_call"),
    (candidate(extra="def helper(g=getattr):\n    return g"), "forbidden_call"),
    (candidate(extra="class Holder:\n    g = vars"), "forbidden_call"),
    (candidate(pre="f = (lambda: compile)()"), "forbidden_call"),
    # modules outside the allowlist, whatever they are: string.Formatter().get_field is getattr on a string
    (candidate(imports="import string"), "forbidden_import"),
    (candidate(imports="import timeit"), "forbidden_import"),
    (candidate(imports="from pkgutil import resolve_name"), "forbidden_import"),
    (candidate(imports="from . import sibling"), "forbidden_import"),
    # eval of strings inside allowed modules, and raw memory
    (candidate(imports="import typing", pre="h = typing.get_type_hints(ModelNew.forward)"), "forbidden_attribute"),
    (candidate(imports="from typing import get_type_hints"), "forbidden_import"),
    (candidate(imports="import numpy as np", pre="v = np.lib.stride_tricks.as_strided"), "forbidden_attribute"),
    (candidate(extra="import functools\n@functools.singledispatch\ndef f(a):\n    pass\n"
                     "@f.register\ndef _(a: \"__import__('sys')\"):\n    pass"), "forbidden_call"),
    (candidate(extra="def f(a: 'not an expression at all'):\n    pass"), "forbidden_annotation"),
    # the interpreter's machinery through dunders and frames, modules kept under private names
    (candidate(pre="b = len.__self__"), "forbidden_attribute"),
    (candidate(pre="g = (i for i in ()).gi_frame"), "forbidden_attribute"),
    (candidate(extra="class P:\n    def __reduce_ex__(self, protocol):\n        return (print, ())"), "forbidden_hook"),
    (candidate(extra="def __getattr__(name):\n    return name"), "forbidden_hook"),
    (candidate(imports="import collections", pre="s = collections._sys"), "forbidden_attribute"),
    (candidate(imports="from collections import _sys"), "forbidden_import"),
    # unpickling, and native code in a Triton candidate
    (candidate(pre="w = torch.load('w.pt', weights_only=False)"), "forbidden_call"),
    (candidate(imports="from torch.utils.cpp_extension import load_inline"), "forbidden_import"),
    (candidate(pre="torch.ops.load_library('x.so')"), "forbidden_attribute"),
    (candidate(pre="g = torch.fx.Graph()"), "forbidden_module_alias"),
    # public names of allowed packages that are other modules or foreign callables, judged by value (a second
    # red-team helper, 2026-12-05)
    (candidate(imports="import triton.language.extra as tle", pre="r = tle.pkgutil.resolve_name"),
     "forbidden_module_alias"),
    (candidate(imports="from torch.autograd.profiler_util import attrgetter"), "forbidden_module_alias"),
    (candidate(imports="import torch.cuda.tunable as tt", pre="q = tt.mp"), "forbidden_module_alias"),
    (candidate(imports="import torch.utils.collect_env as ce"), "forbidden_module_alias"),
    (candidate(pre="p = torch.xpu.cast"), "forbidden_module_alias"),
    (candidate(pre="d = torch.utils.data.DataLoader"), "forbidden_module_alias"),
    (candidate(imports="import numpy as np", pre="a = np.load(x, None, True)"), "forbidden_module_alias"),
    # dataclasses pastes the keys of a class body's __annotations__ into code it executes
    (candidate(extra="class Box:\n    __annotations__ = {'x': int}"), "forbidden_attribute"),
    # a module rebound to another name still shows its private attributes
    (candidate(imports="import collections", extra="c = collections\ns = c._sys"), "forbidden_attribute"),
    # public helpers of allowed packages that run code strings or threads, judged by their own code (a third
    # red-team helper, 2026-12-05)
    (candidate(imports="import numpy as np", pre="np.testing.measure('1')"), "forbidden_module_alias"),
    (candidate(pre="t = triton.language.str_to_ty('fp32')"), "forbidden_module_alias"),
    (candidate(imports="from triton.runtime.jit import create_function_from_signature"), "forbidden_module_alias"),
    # a string in a typing subscript is a forward reference that get_type_hints evaluates
    (candidate(imports="import typing", extra="HINT = typing.List[\"__import__('sys')\"]"), "forbidden_call"),
    # a class namespace given as data, and an exception swallowed by a context manager
    (candidate(extra="Box = type('Box', (), {'x': 1})"), "forbidden_call"),
    (candidate(extra="ns = {'__annotations__': {}}"), "forbidden_attribute"),
    (candidate(extra="class Quiet:\n    def __enter__(self):\n        return self\n"
                     "    def __exit__(self, typ, value, tb):\n        return True"), "try_fallback"),
    # patching any imported module, not only torch's
    (candidate(imports="import warnings", extra="warnings.showwarning = print"), "monkeypatch"),
    # a fourth red-team helper: match patterns read attributes and bind names written as plain strings
    (candidate(extra="def peek(f):\n    match f:\n        case object(real=r):\n            return r"),
     "forbidden_syntax"),
    # dunders bound where no Name is written: an import alias, a parameter
    (candidate(extra="class Box:\n    from functools import partial as __class_getitem__"), "forbidden_attribute"),
    (candidate(extra="def f(__spec__=1):\n    return 1"), "forbidden_attribute"),
    # code objects taken from a generator and renamed: the introspection types' own attributes
    (candidate(extra="def g():\n    yield 1\nc = g().gi_code"), "forbidden_attribute"),
    (candidate(extra="def g():\n    yield 1\nn = g().gi_code.co_names"), "forbidden_attribute"),
    # a module held as a value, out of the reach rules' sight
    (candidate(pre="pu = torch.autograd.profiler_util"), "forbidden_module_alias"),
    (candidate(pre="m = [torch][0]"), "forbidden_module_alias"),
    (candidate(extra="def f(m=torch.autograd):\n    return m"), "forbidden_module_alias"),
    (candidate(extra="for m in [torch.cuda]:\n    pass"), "forbidden_module_alias"),
    # a library object bound to a name and patched through it
    (candidate(extra="T = torch.Tensor\nT.add = print"), "monkeypatch"),
    (candidate(extra="for T in (torch.Tensor,):\n    T.add = print"), "monkeypatch"),
    # a public helper whose code reads attributes by the caller's names, and the environment's writer
    (candidate(imports="from torch.ao.quantization.utils import getattr_from_fqn"), "forbidden_module_alias"),
    (candidate(pre="triton.knobs.setenv('X', '1')"), "forbidden_module_alias"),
    # a fifth red-team helper: a name some library wrote into the module's namespace (Triton's interpreter copies
    # its globals, inspect among them), a string held in a variable used as an annotation, TorchScript's type
    # lines, an unpickling reader with its flag passed by position, type under another name, a JITFunction's scope
    (candidate(pre="m = inspect.getmodule(len)"), "unbound_name"),
    (candidate(imports="from math import *"), "unbound_name"),
    (candidate(extra="A = 'int'\ndef impl(x: A):\n    return x"), "forbidden_annotation"),
    (candidate(extra="def impl(x: make_type()):\n    return x\ndef make_type():\n    return int"),
     "forbidden_annotation"),
    (candidate(imports="from torch.jit.annotations import parse_type_line"), "forbidden_module_alias"),
    (candidate(imports="import numpy as np", pre="a = np.lib.format.read_array(x, True)"), "forbidden_module_alias"),
    (candidate(extra="make = type"), "forbidden_call"),
    (candidate(pre="s = scaled_relu_kernel.get_capture_scope()"), "forbidden_attribute"),
    # a tensor subclass with a __torch_function__ from a namespace built at run time (a red-team helper, 2026-12-06)
    (candidate(imports="import dataclasses", extra="NS = dict([('__' + 'torch_function__', None)])\n"
               "Lazy = dataclasses.make_dataclass('Lazy', [], bases=(torch.Tensor,), namespace=NS)"),
     "forbidden_attribute"),
    (candidate(imports="from dataclasses import make_dataclass"), "forbidden_import"),
    # a sixth: an object a package keeps (an import-time loop's ModuleSpec, whose loader writes and runs files),
    # a module kept by a class, a private module, a library class's private attribute set by a subclass
    (candidate(imports="import triton.language.extra", pre="L = triton.language.extra.spec.loader"),
     "forbidden_module_alias"),
    (candidate(imports="import triton.language.semantic",
               pre="k = triton.language.semantic.TritonSemantic.lang"), "forbidden_module_alias"),
    (candidate(imports="from torch._guards import Source"), "forbidden_import"),
    (candidate(imports="import torch._guards as g"), "forbidden_import"),
    (candidate(extra="class Quiet(nn.Module):\n    def _apply(self, fn):\n        return self"), "forbidden_hook"),
    # a ninth: a parameter named self in a plain function is whatever its caller passes, and a method's self
    # rebound is another object
    (candidate(imports="import collections", extra="def peek(self):\n    return self._sys"), "forbidden_attribute"),
    (candidate(extra="class Box:\n    def peek(self, other):\n        self = other\n        return self._x"),
     "forbidden_attribute"),
])
def test_a_way_into_the_worker_past_the_name_rules_is_flagged(source, flag):
    assert flag in names(source)


@pytest.mark.parametrize("source", [
    candidate(pre='self.register_buffer("scale", torch.ones(1))'),
    candidate(imports="from torch.nn.modules.utils import _pair", pre="k = _pair(3)"),
    candidate(pre="k = torch.nn.modules.utils._pair(3)"),
    # a variable of its own named like a built-in is not the built-in
    candidate(extra="def scale(input, vars=2):\n    return input * vars"),
    candidate(imports="import math\nimport numpy as np\nfrom typing import Optional\nfrom functools import lru_cache",
              extra="@lru_cache(maxsize=None)\ndef blocks(n: Optional[int] = None) -> 'int':\n"
                    "    return int(math.ceil(np.sqrt(n or 1)))"),
    candidate(extra="class Config:\n    def __init__(self):\n        self._warps = 4\n"
                    "    def __repr__(self):\n        return f'{type(self).__name__}({self._warps})'"),
    candidate(imports="import torch.nn.functional as F", pre="g = F.gelu(x)", extra="if __name__ == '__main__':\n"
                                                                                     "    pass"),
    # a context manager that lets exceptions through; a dict keyed by strings
    candidate(extra="class Noisy:\n    def __enter__(self):\n        return self\n"
                    "    def __exit__(self, typ, value, tb):\n        return False\n"
                    "SIZES = {'block size': 128}\nfrom typing import Dict\nTABLE: Dict['str', int] = {}"),
    # standard functions whose __module__ is their C accelerator (_functools, _warnings)
    candidate(imports="import warnings\nfrom functools import reduce", pre="n = reduce(lambda a, b: a * b, x.shape, 1)",
              extra="warnings.warn('fine')"),
    # annotations naming types, and type(x) with one argument
    candidate(imports="from typing import Optional", extra="def f(x: Optional[torch.Tensor] = None) -> int:\n"
                                                           "    return type(x).__name__.count('T')"),
    # private attributes of a method's own self, also in a function nested in the method; an autograd ctx
    candidate(extra="class Box:\n    def __init__(self):\n        self._w = 1\n"
                    "    def get(self):\n        def inner():\n            return self._w\n        return inner()\n"
                    "class Op(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
                    "        ctx._n = 1\n        return x"),
    # nn.Module's own modules() (ten bundled tasks initialise their weights through it)
    candidate(pre="n = sum(1 for m in self.modules())"),
    # attributes of its own objects, a descriptor among them (Triton's TMA pre-hook pattern); classes as values;
    # a string's replace(); super() (its __class__ cell)
    candidate(imports="from triton.tools.tensor_descriptor import TensorDescriptor",
              pre="d = TensorDescriptor.from_tensor(x, [16, 16])\n        d.block_shape = [32, 32]",
              extra="def hook(nargs):\n    nargs['desc'].block_shape = [64, 64]\n"
                    "def is_tensor(v):\n    return isinstance(v, torch.Tensor) and 'a b'.replace(' ', '') == 'ab'"),
])
def test_lookalikes_of_forbidden_names_are_not_flagged(source):
    assert names(source) == set()


@pytest.mark.parametrize("declaration, flagged", [
    ("# -*- coding: utf-7 -*-\n", True),
    ("#!/usr/bin/env python\n# vim: set fileencoding=latin-1 :\n", True),
    ("# coding=rot13\n", True),
    ("# -*- coding: utf-8 -*-\n", False),
    ("# coding: UTF_8\n", False),
    ("# coding=utf8\n", False),
])
def test_encoding_declaration_other_than_utf8_is_flagged(declaration, flagged):
    assert ("encoding_declaration" in names(declaration + GOOD)) is flagged


DECOY = 'decoy = """\ndef f():\n    return "hidden"\n"""\n# {breaks}\ndef f():\n    return "checked"\n'


@pytest.mark.parametrize("char", ["\x0c", "\x0b", "\x1c", "\x85", "\u2028", "\u2029"])
def test_line_break_only_splitlines_sees_is_flagged(char):
    # why: the worker seeds linecache with source.splitlines() and Triton reads kernels with inspect.getsource, so
    # such breaks (harmless to Python in a comment) shift the lines Triton reads onto a kernel hidden in a string
    source, path = DECOY.format(breaks=char * 3), f"<decoy-{ord(char)}>"
    linecache.cache[path] = (len(source), None, source.splitlines(True), path)
    namespace = {}
    exec(compile(source, path, "exec"), namespace)  # noqa: S102 - the test's own text
    assert namespace["f"]() == "checked" and "hidden" in inspect.getsource(namespace["f"])
    del linecache.cache[path]
    assert "line_break_mismatch" in names(GOOD.replace("pass", f"pass  # {char}", 1))


@pytest.mark.parametrize("char", ["\0", "\ufeff"])
def test_nul_and_byte_order_mark_are_flagged(char):
    assert "hidden_character" in names(GOOD.replace("pass", f"s = '{char}'", 1))


@pytest.mark.parametrize("path", SOLUTIONS, ids=lambda p: "/".join(p.parts[-3:]))
def test_every_bundled_solution_passes_the_static_checks(path):
    backend = path.parent.parent.name
    assert check_source(path.read_text(), backend) == []


def test_bundled_solutions_cover_both_backends():
    assert {p.parent.parent.name for p in SOLUTIONS} == {"triton", "cuda"}


def test_a_class_is_judged_by_the_code_of_its_methods():
    """Reached through a subclass of the candidate's, a library class's method that evals runs what the subclass
    sets (torch._guards.Source.get_value, a sixth red-team helper): classes are judged by their methods' code,
    though not for getattr (nn.Module's own machinery uses it)."""
    import torch

    from kernelgym.judge.reach import _class_runs_code

    class Evaluating:
        def get_value(self, scope):
            return eval(self.template, scope)  # noqa: S307 - the shape under test

    class Plain(torch.nn.Module):
        def forward(self, x):
            return getattr(x, "relu")()

    assert "eval" in _class_runs_code(Evaluating)
    assert _class_runs_code(Plain) is None and _class_runs_code(torch.nn.Module) is None


def test_the_frame_writer_binds_its_encoder():
    """Code that replaced protocol.encode_frame rewrote every frame the watched write_frame sent (a sixth red-team
    helper): write_frame calls the encoder bound when it was defined."""
    import os

    from kernelgym.judge import protocol

    original = protocol.encode_frame
    read, write = os.pipe()
    try:
        protocol.encode_frame = lambda header: original({"forged": True})
        protocol.write_frame(write, {"event": "timing"})
        raw = os.read(read, 1 << 16)
    finally:
        protocol.encode_frame = original
        os.close(read)
        os.close(write)
    assert b"forged" not in raw and b"timing" in raw



# modules whose import does something to the process that imports them: runs a program on its command line
# (sys.exit at the end), or sets torch's backend flags for good (a red-team helper, 2026-12-06)
PROGRAM_MODULE = "torch.utils.model_dump.__main__"
PRIVATE_MODULES = ("torch.testing._internal.common_utils", "torch.testing._internal.common_device_type")
CHECK_IN_A_FRESH_PROCESS = """
import json, sys
from kernelgym.judge.guards import check_source
modules = sys.argv[1].split(",")  # what follows is a command line model_dump's program cannot parse
flags = [check_source("import torch\\nimport torch.nn as nn\\nimport " + m + "\\n\\n"
                      "class ModelNew(nn.Module):\\n    def forward(self, x):\\n        return x\\n") for m in modules]
print(json.dumps({"flags": flags, "imported": [m for m in modules if m in sys.modules]}))
"""


def test_the_static_checks_import_no_program_private_or_test_module_in_the_runner():
    """The reach check resolves names against the runner's own packages, importing what is not loaded yet: a
    program module ran ``sys.exit`` on the checking process's command line (it ended the trainer), a private test
    module froze torch's backend flags (every later reference forward failed). Neither is imported now, and both
    candidates are flagged."""
    import json
    import subprocess
    import sys

    modules = (PROGRAM_MODULE, *PRIVATE_MODULES, "torch.utils.model_dump.tests")
    proc = subprocess.run([sys.executable, "-c", CHECK_IN_A_FRESH_PROCESS, ",".join(modules), "--unknown-option"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["imported"] == []
    for module, flags in zip(modules, out["flags"]):
        assert any(name in ("forbidden_import", "forbidden_module_alias") for name, _ in flags), (module, flags)


def test_an_import_that_ends_the_process_is_the_modules_verdict(monkeypatch):
    """A public submodule whose import raises SystemExit: the reach check names it, the caller goes on."""
    from kernelgym.judge import reach

    real = reach.importlib.import_module

    def exits_on_one(name, *args, **kwargs):
        if name == "torch.nn.exits_when_imported":
            raise SystemExit(2)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(reach.importlib, "import_module", exits_on_one)
    reach.forbidden_reach.cache_clear()
    try:
        why = reach.forbidden_reach("torch.nn.exits_when_imported.thing")
    finally:
        reach.forbidden_reach.cache_clear()
    assert why is not None and "ends the process" in why


def test_an_evaluation_of_a_program_module_is_rejected_and_the_judge_goes_on(tmp_path, relu_task):
    from kernelgym.judge.runner import Judge

    judge = Judge(device="cpu", cache_dir=tmp_path)
    result = judge.evaluate(relu_task, f"import torch\nimport torch.nn as nn\nimport {PROGRAM_MODULE}\n\n"
                                       "class ModelNew(nn.Module):\n    def forward(self, x):\n        return x\n")
    assert result.status == "rejected", result.message
    assert PROGRAM_MODULE not in __import__("sys").modules


def test_the_static_check_runs_no_module_getattr_of_an_allowed_package():
    """torch's module ``__getattr__`` imports ``torch._dynamo`` on first access: naming ``torch._dynamo.config`` in a
    candidate imported it (and ``torch._inductor``) into the runner, past the rule on private modules. The check
    reads what a module holds without running its ``__getattr__`` (a fresh process: this one may have them)."""
    import subprocess
    import sys

    code = ("import sys, torch\nfrom kernelgym.judge.guards import check_source\n"
            "flags = check_source('import torch\\nx = torch._dynamo.config\\n', torch_policy='partial')\n"
            "print(bool(flags), 'torch._dynamo' in sys.modules, 'torch._inductor' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip().splitlines()[-1] == "True False False", out.stderr[-2000:]


@pytest.mark.parametrize("init, forward, refused", [
    ("super().__init__()", "x", False),
    ("super(ModelNew, self).__init__()", "x", False),
    ("super(nn.Module, self).__init__()", "x", True),           # a class not the text's own
    ("super().__init__()", "super(torch.Tensor, x).numpy()", True),
    ("super().__init__()\n        self.s = super", "x", True),   # super as a value, to be called so elsewhere
    ("super().__init__()", "torch.Tensor.mro()[1].numpy(x)", True),
])
def test_super_and_mro_reach_no_class_beyond_the_texts_own(init, forward, refused):
    """``super(torch.Tensor, x)`` and ``torch.Tensor.mro()[1]`` are torch's C base class, whose ``numpy`` is not
    the method the worker wraps to count host reads."""
    text = (f"import torch\nimport torch.nn as nn\n\nclass ModelNew(nn.Module):\n    def __init__(self):\n"
            f"        {init}\n\n    def forward(self, x):\n        return {forward}\n")
    names = {f[0] for f in check_source(text, torch_policy="partial")}
    assert bool(names & {"forbidden_call", "forbidden_attribute"}) == refused, names


# ---- false alarms mended (tests/test_honest_variety.py), each with the cheat its rule exists for still refused ----

CUDA_TEXT = ("from torch.utils.cpp_extension import load_inline\nsrc = '__global__ void k(float* x) {}'\n"
             "class ModelNew:\n    pass\n")
MAIN_BLOCK = "if __name__ == '__main__':\n    a = torch.randn(4, 4)\n    b = torch.matmul(a, a)\n"


@pytest.mark.parametrize("source, flag", [
    # __all__: only a top-level list or tuple of string constants is the export list
    (candidate(extra="def f():\n    return 'x'\n__all__ = [f()]"), "forbidden_attribute"),
    (candidate(extra="__all__ = ['ModelNew']\n__all__.append('k')"), "forbidden_attribute"),
    (candidate(extra="__all__ = []\n__all__ += ['ModelNew']"), "forbidden_attribute"),
    (candidate(extra="__all__ = ['ModelNew']\nimport math as __all__"), "forbidden_attribute"),
    (candidate(extra="__all__ = ['ModelNew']\ndef f(__all__):\n    return 1"), "forbidden_attribute"),
    (candidate(extra="class Box:\n    __all__ = ['x']"), "forbidden_attribute"),
    (candidate(extra="__annotations__ = ['x']"), "forbidden_attribute"),
    # getattr: only the built-in, called by name with a public identifier as a string constant (and a constant
    # default), read as the attribute it names and judged as such
    (candidate(pre="c = getattr(x, '__class__')"), "forbidden_call"),
    (candidate(pre="c = getattr(torch, '_C')"), "forbidden_call"),
    (candidate(pre="n = 'shape'\n        c = getattr(x, n)"), "forbidden_call"),
    (candidate(pre="g = getattr\n        c = g(x, 'shape')"), "forbidden_call"),
    (candidate(pre="c = getattr(*[x, 'shape'])"), "forbidden_call"),
    (candidate(pre="c = getattr(x, 'shape', x)"), "forbidden_call"),
    (candidate(pre="c = getattr(x, 'ｍｒｏ')"), "forbidden_call"),  # NFKC folds it to mro in code, not in getattr
    (candidate(extra="def getattr(o, n):\n    return o\nz = getattr(ModelNew, 'x')"), "forbidden_call"),
    (candidate(pre="m = getattr(torch, 'sys')"), "forbidden_module_alias"),
    (candidate(pre="m = getattr(torch, 'cuda', None)"), "forbidden_module_alias"),
    (candidate(pre="c = getattr(x, 'mro')()"), "forbidden_attribute"),
    (candidate(pre="getattr(self, 'register_forward_hook')(print)"), "forbidden_hook"),
    (candidate(pre="getattr(torch.Tensor, 'add', None).x = 1"), "monkeypatch"),
    (candidate(pre="y0 = getattr(torch, 'matmul')(x, x)"), "torch_fallback"),
    # the strings moved out of the call stay among the constants the CUDA rules join end to end
    (CUDA_TEXT + "s = getattr(ModelNew, 'n', ' cudaStreamCre') + 'ate(&s);'", "forbidden_cuda"),
    # type aliases in annotations: only import-rooted names, built-in classes and subscripts of them
    (candidate(extra="T = eval\ndef f(x: T):\n    return x"), "forbidden_annotation"),
    (candidate(extra="T = torch.Tensor\nT = 'int'\ndef f(x: T):\n    return x"), "forbidden_annotation"),
    (candidate(imports="from typing import Tuple", extra="def mk():\n    return int\nT = Tuple[int, mk()]\n"
                                                         "def f(x: T):\n    return x"), "forbidden_annotation"),
    (candidate(imports="from typing import List", extra="T = List['int']\ndef f(x: T):\n    return x"),
     "forbidden_annotation"),
    (candidate(extra="T = torch.Tensor if True else 'int'\ndef f(x: T):\n    return x"), "forbidden_annotation"),
    (candidate(extra="for T in [torch.Tensor]:\n    pass\ndef f(x: T):\n    return x"), "forbidden_annotation"),
    # the private names nn.Linear's init uses: only _calculate_fan_in_and_fan_out among torch.nn.init's
    (candidate(pre="torch.nn.init._no_grad_uniform_(x, 0, 1)"), "forbidden_attribute"),
    (candidate(imports="from torch.nn.init import _calculate_correct_fan"), "forbidden_import"),
    # the main-block exemption lifts the torch-compute rule only, and only when nothing binds __name__
    (candidate(extra="__name__ = '__main__'\n" + MAIN_BLOCK), "torch_fallback"),
    (candidate(extra="for __name__ in ['__main__']:\n    pass\n" + MAIN_BLOCK), "torch_fallback"),
    (candidate(extra="x0 = (__name__ := '__main__')\n" + MAIN_BLOCK), "torch_fallback"),
    (candidate(extra=MAIN_BLOCK + "else:\n    c = torch.matmul(a, a)"), "torch_fallback"),
    (candidate(extra="if True:\n    " + MAIN_BLOCK.replace("\n    ", "\n        ")), "torch_fallback"),
    (candidate(extra="if '__main__' == __name__:\n    b = torch.matmul(torch.ones(2, 2), torch.ones(2, 2))"),
     "torch_fallback"),
    (candidate(extra=MAIN_BLOCK + "    f = eval('1')"), "forbidden_call"),
    (candidate(extra=MAIN_BLOCK + "    global CACHE"), "global_state"),
    (candidate(extra=MAIN_BLOCK + "    w = torch.load('w.pt', weights_only=False)"), "forbidden_call"),
    # (the keyword rule used to be skipped with the torch-compute rule in __init__ as well)
    (GOOD.replace("super().__init__()", "super().__init__()\n        w = torch.load('w.pt', weights_only=False)"),
     "forbidden_call"),
    # torch.backends: read and judged by value; written, it is patching
    (candidate(pre="torch.backends.cudnn.enabled = False"), "monkeypatch"),
    (candidate(pre="torch.backends.cuda.matmul.allow_tf32 = True"), "monkeypatch"),
    (candidate(pre="b = torch.backends.cudnn"), "forbidden_module_alias"),
    (candidate(pre="f = torch.backends.xeon.run_cpu.start_processes"), "forbidden_module_alias"),
    (candidate(pre="b = triton.backends"), "forbidden_module_alias"),
    (candidate(pre="b = torch.nn.backends"), "forbidden_module_alias"),
    (candidate(imports="from torch import backends"), "forbidden_import"),
])
def test_a_mended_false_alarm_keeps_its_cheat_refused(source, flag):
    assert flag in names(source, "cuda" if source.startswith(CUDA_TEXT) else "triton")


@pytest.mark.parametrize("source", [
    candidate(extra="__all__ = ['ModelNew', 'k']"),
    candidate(pre="lo = getattr(self, 'min_val', -1.0)\n        b = getattr(self, 'bias', None)"),
    candidate(imports="from typing import Optional, Tuple", extra="Tensor = torch.Tensor\nShape = Tuple[int, ...]\n"
              "Maybe = Optional[Tensor]\ndef f(x: Tensor, s: Shape, m: Maybe = None) -> Tensor:\n    return x"),
    candidate(pre="fan_in, _ = nn.init._calculate_fan_in_and_fan_out(x)"),
    candidate(extra=MAIN_BLOCK),
    candidate(pre="ok = torch.backends.cudnn.is_available() and torch.backends.cuda.matmul.allow_tf32"),
    candidate(imports="import collections", extra="Cfg = collections.namedtuple('Cfg', 'block warps')"),
    candidate(imports="import torch.nn.functional as F", pre="x = F.pad(x, (1, 1))"),
])
def test_a_mended_false_alarm_stays_mended(source):
    assert names(source) == set()


def test_import_module_of_a_constant_does_not_make_a_function_code_running():
    """``torch.nn.functional.pad`` calls ``importlib.import_module("torch._decomp.decompositions")``: the caller cannot
    choose that module. Any other use of import_module still makes a function code-running, read from the bytecode:
    a variable, an argument computed from one, a second argument, a keyword, a constant naming a forbidden module,
    import_module kept as a value, and the same inside a nested function."""
    import importlib

    import torch.nn.functional as F

    from kernelgym.judge.reach import _runs_code

    def constant():
        return importlib.import_module("torch.nn.functional").relu

    def variable(name):
        return importlib.import_module(name)

    def either(name):
        return importlib.import_module(name or "torch.nn")

    def chosen(name):
        return importlib.import_module("torch.nn" if name else "os")

    def relative(package):
        return importlib.import_module("torch.nn", package)

    def keyword():
        return importlib.import_module(name="torch.nn")

    def forbidden():
        return importlib.import_module("os")

    def held():
        load = importlib.import_module
        return load("torch.nn")

    def nested(name):
        def inner():
            return importlib.import_module(name)
        return importlib.import_module("torch.nn"), inner

    assert _runs_code(constant) is None
    assert [_runs_code(f) for f in (F.pad, F.interpolate, F.max_pool3d_with_indices)] == [None] * 3
    for wrapper in (variable, either, chosen, relative, keyword, forbidden, held, nested):
        assert "import_module" in (_runs_code(wrapper) or ""), wrapper.__name__


#: public names of allowed packages whose value comes from a forbidden module (benchmarks/reach_survey.py, depth 4,
#: 2026-12-07): each passed the reach check while a callable's home was read only by its top-level package
REEXPORTED_FORBIDDEN = [
    "torch.utils.model_zoo.load_url",  # torch.hub's: downloads a file and unpickles it
    "torch.utils.jit.log_extract.Timer",  # torch.utils.benchmark's: runs code strings (timeit)
    "triton.compiler.compiler.get_sass",  # triton.tools.disasm's: runs cuobjdump
    "torch.nn.parallel.distributed.ReduceOp",  # torch.distributed's
    "torch.nn.parallel.distributed.RRef",
    "torch.nn.parallel.distributed.Join",
    "torch.nn.parallel.DistributedDataParallel",  # derived from torch.distributed's Joinable
    "torch.autograd.handle_torch_function",  # torch.overrides'
    "torch.nn.modules.module.is_traceable_wrapper_subclass",  # torch.utils._python_dispatch's
    "torch.export.custom_ops.lib.impl",  # torch.library's
    "torch.export.exported_program.FakeTensorMode",  # torch._subclasses'
    "torch.export.exported_program.PassManager",  # torch.fx's
    "torch.CompilationUnit",  # torch.jit's: compiles TorchScript source
    "torch.utils.mkldnn.MkldnnLinear",  # a torch.jit.ScriptModule
    "numpy.ma.testutils.assert_allclose",  # numpy.testing's
    "triton.compiler.compiler.BaseBackend",  # triton.backends'
    "torch.utils.weak.WeakIdRef",  # derived from weakref.ref
    # C halves of torch.serialization and torch.jit shown as torch's own (__module__ "torch"): by identity
    "torch.PyTorchFileWriter", "torch.PyTorchFileReader", "torch.import_ir_module",
]


@pytest.mark.parametrize("path", REEXPORTED_FORBIDDEN)
def test_a_re_export_of_a_forbidden_modules_callable_is_refused_wherever_it_is_reached(path):
    from kernelgym.judge.reach import forbidden_reach

    assert forbidden_reach(path) is not None
    assert "forbidden_module_alias" in names(candidate(imports=f"import {path.split('.')[0]}", pre=f"f = {path}"))


def test_a_callable_is_judged_by_its_full_home_not_a_list_of_re_exporting_modules(monkeypatch):
    """``torch.backends.xeon.run_cpu.start_processes`` is torch.distributed's: refused by its own home even with
    ``torch.backends.xeon`` taken off the list; and the homes of what a callable wraps or binds count."""
    import functools
    import subprocess
    import threading

    from kernelgym.judge import reach

    reach.forbidden_reach.cache_clear()
    monkeypatch.setattr(reach, "FORBIDDEN_SUBMODULES", tuple(m for m in reach.FORBIDDEN_SUBMODULES
                                                               if m != "torch.backends.xeon"))
    try:
        assert "torch.distributed" in (reach.forbidden_reach("torch.backends.xeon.run_cpu.start_processes") or "")
    finally:
        reach.forbidden_reach.cache_clear()

    from torch.distributed.elastic.multiprocessing import start_processes

    exec_globals = {"__name__": "torch.distributed.fake"}
    exec("def launder(*a):\n    return a\n", exec_globals)  # noqa: S102 - a function whose code is a forbidden module's
    laundered = exec_globals["launder"]
    laundered.__module__ = "torch.nn.functional"
    for value in (functools.partial(subprocess.run, ["id"]), threading.Thread(target=len).start,
                  staticmethod(start_processes), functools.partial(functools.partial(start_processes)), laundered):
        assert reach._judge_value(value, False) is not None, value


def _bare(name):
    return import_module(name)  # noqa: F821 - bound below, as a library module binds it


def _aliased(name):
    return _im(name)  # noqa: F821


def _local_import(name):
    from importlib import import_module as load
    return load(name)


def _dunder(name):
    return __import__(name)


def _importlib_dunder(name):
    import importlib
    return importlib.__import__(name)


def _builtins_dunder(name):
    import builtins
    return builtins.__import__(name)


def _held_as_default(name, _load=None):
    return _load(name)


def _bare_constant():
    return import_module("torch.nn.functional")  # noqa: F821


def _bare_forbidden_constant():
    return import_module("os")  # noqa: F821


def _dunder_constant():
    return __import__("torch.nn")


def _imports_an_allowed_function():
    from functools import reduce
    return reduce


def _imports_an_unpickler():
    from pickle import loads
    return loads


def test_import_functions_under_any_name_make_a_function_code_running():
    """``from importlib import import_module`` then ``import_module(x)``, an alias of it, an import inside the
    function, ``__import__`` / ``importlib.__import__`` / ``builtins.__import__``, the function held as a default:
    each imports by the caller's string. A constant naming an allowed module does not count (``F.pad``'s)."""
    import importlib

    from kernelgym.judge.reach import _runs_code

    globals()["import_module"] = globals()["_im"] = importlib.import_module
    _held_as_default.__defaults__ = (importlib.import_module,)
    for function in (_bare, _aliased, _local_import, _dunder, _importlib_dunder, _builtins_dunder, _held_as_default,
                     _bare_forbidden_constant, _imports_an_unpickler):
        assert _runs_code(function) is not None, function.__name__
    for function in (_bare_constant, _dunder_constant, _imports_an_allowed_function):
        assert _runs_code(function) is None, function.__name__


def test_torchs_manual_seed_is_allowed_whether_or_not_dynamo_was_imported():
    """Importing ``torch._dynamo`` wraps ``torch.manual_seed`` in torch's dynamo-disabling wrapper, whose code reads
    an attribute by ``getattr``: the reach check refused ``torch.manual_seed`` in a runner that had imported dynamo
    and allowed it in one that had not (the same honest text, two verdicts, by test order in CI). Each case in a
    fresh process (the reach verdicts are cached per process)."""
    import subprocess
    import sys

    probe = ("import torch\n{pre}\nfrom kernelgym.judge.reach import forbidden_reach\n"
             "print(repr(forbidden_reach('torch.manual_seed')))\n")
    for pre in ("", "import torch._dynamo"):
        out = subprocess.run([sys.executable, "-c", probe.format(pre=pre)], capture_output=True, text=True,
                             timeout=300)
        assert out.returncode == 0, out.stderr[-2000:]
        assert out.stdout.strip().splitlines()[-1] == "None", (pre, out.stdout[-500:])
