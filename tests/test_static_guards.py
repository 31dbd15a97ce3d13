"""Static guards flag the tricks they target and leave honest kernels alone."""

from __future__ import annotations

import pytest

from conftest import GOOD, candidate
from kernelgym.judge.guards import check_source


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
    assert "forbidden_cuda" in names(cuda.replace("{}", "{ cublasSgemm(h); }"), "cuda")
