"""The torch-use policy (kernelgym.judge.policy): torch may do part of the work under ``partial`` (the default),
none under ``strict``; the candidate's own kernels must run under both; ``off`` keeps only the hard rules."""

from __future__ import annotations

import pytest

from kernelgym.judge.guards import check_source
from kernelgym.testing.candidates import EXPLOITS, indent, kernel_forward
from conftest import SHORT


#: torch computes relu, the candidate's own Triton kernel the epilogue (the shape of a conv + fused epilogue)
TORCH_THEN_OWN_EPILOGUE = kernel_forward(indent('''
r = torch.relu(x).contiguous()
y = torch.empty_like(r)
epilogue[(triton.cdiv(r.numel(), 256),)](r, y, r.numel(), BLOCK=256)
return y'''), extra='''
@triton.jit
def epilogue(r_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(r_ptr + offs, mask=mask) * 2.0 + 1.0, mask=mask)''')
#: the candidate defines a kernel but torch does all the work
OWN_KERNEL_NEVER_RUNS = EXPLOITS["kernel_never_launched"][1]


@pytest.mark.parametrize("policy, status", [("strict", "rejected"), ("partial", "ok"), ("off", "ok")])
def test_torch_doing_part_of_the_work_depends_on_the_policy(judge, relu_task, policy, status):
    result = judge.evaluate(relu_task, TORCH_THEN_OWN_EPILOGUE, profile=SHORT, torch_policy=policy)
    assert result.status == status, (result.message, result.log_tail[-500:])
    assert result.torch_policy == policy
    if status == "rejected":
        assert result.flags[0]["name"] == "torch_fallback"


@pytest.mark.parametrize("policy, status", [("strict", "rejected"), ("partial", "rejected"), ("off", "ok")])
def test_a_candidate_whose_own_kernel_never_runs_is_rejected_unless_the_policy_is_off(judge, relu_task, policy,
                                                                                       status):
    result = judge.evaluate(relu_task, OWN_KERNEL_NEVER_RUNS, profile=SHORT, torch_policy=policy)
    assert result.status == status, result.message
    if status == "rejected":
        assert "no_custom_kernel" in {f["name"] for f in result.flags}


def test_an_unknown_policy_is_a_clear_error(judge, relu_task):
    with pytest.raises(ValueError, match="strict, partial, off"):
        judge.evaluate(relu_task, TORCH_THEN_OWN_EPILOGUE, torch_policy="lenient")


CUDA_WITH_CUBLAS = '''
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline
src = """
#include <cublas_v2.h>
__global__ void k(float* y) {}
torch::Tensor f(torch::Tensor x) { if (!x.is_cuda()) { throw std::runtime_error("x"); } cublasCreate(nullptr); return x; }
"""
ext = load_inline(name="m", cpp_sources="torch::Tensor f(torch::Tensor x);", cuda_sources=src, functions=["f"])
class ModelNew(nn.Module):
    def forward(self, x):
        return ext.f(x)
'''


def test_library_compute_in_cuda_source_is_a_torch_fallback_under_strict_only():
    assert {n for n, _ in check_source(CUDA_WITH_CUBLAS, "cuda", "strict")} == {"torch_fallback"}
    assert check_source(CUDA_WITH_CUBLAS, "cuda", "partial") == []
    assert check_source(CUDA_WITH_CUBLAS, "cuda", "off") == []


def test_library_compute_as_a_method_through_at_ops_or_split_over_strings_is_a_torch_fallback_under_strict():
    """An eighteenth red-team helper passed the rule under ``strict`` with a tensor method (``x.matmul(x)``),
    ``at::_ops::mm::call`` and a name split over Python strings joined at run time; each is flagged now. A
    method of the same name that is not compute (``x.clone()``) is not."""
    for call in ("x.matmul(x)", "(x + 1).mm(x)", "at::_ops::mm::call(x, x)", "x.conv2d(x)"):
        text = CUDA_WITH_CUBLAS.replace("cublasCreate(nullptr); return x;", f"return {call};")
        assert {n for n, _ in check_source(text, "cuda", "strict")} == {"torch_fallback"}, call
        assert check_source(text, "cuda", "partial") == [], call
    split = CUDA_WITH_CUBLAS.replace('cublasCreate(nullptr); return x; }\n"""',
                                     'cub""" + """lasCreate(nullptr); return x; }\n"""')
    assert split != CUDA_WITH_CUBLAS and "cublasCreate" not in split
    assert {n for n, _ in check_source(split, "cuda", "strict")} == {"torch_fallback"}
    cloning = CUDA_WITH_CUBLAS.replace("cublasCreate(nullptr); return x;", "return x.clone();")
    assert check_source(cloning, "cuda", "strict") == []


def test_host_code_may_not_reach_functions_by_name_or_start_processes_any_way():
    """``dlsym`` reached any library function by a string, and ``vfork``/``posix_spawn``/``execveat``/``syscall``
    passed the rule beside ``fork``/``system`` (an eighteenth red-team helper)."""
    for call in ('dlsym(nullptr, "cublasCreate_v2");', "vfork();", "posix_spawn(0, 0, 0, 0, 0, 0);",
                 "execveat(0, 0, 0, 0, 0);", "syscall(57);", 'dlmopen(0, "x", 2);'):
        text = CUDA_WITH_CUBLAS.replace("cublasCreate(nullptr);", call)
        for policy in ("strict", "partial", "off"):
            assert {n for n, _ in check_source(text, "cuda", policy)} == {"forbidden_cuda"}, (call, policy)


def test_host_code_may_raise_and_exit_but_never_spawn():
    raising = CUDA_WITH_CUBLAS.replace("cublasCreate(nullptr);", "if (x.numel() == 0) exit(1);")
    assert check_source(raising, "cuda", "strict") == []
    spawning = CUDA_WITH_CUBLAS.replace("cublasCreate(nullptr);", 'system("sleep 1");')
    for policy in ("strict", "partial", "off"):
        assert {n for n, _ in check_source(spawning, "cuda", policy)} == {"forbidden_cuda"}


# -- host reads the strict policy lets through, and the laundering it still refuses ------------------------------
#: a forward whose host code does the whole task (relu(x) * 2 + 1 in Python) on ``vals``, the input's values as a
#: list got through ``LAUNDER``, and whose Triton kernel only copies the host's result into the output
HOST_DOES_THE_WORK = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copyk(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("buf", torch.zeros(2400))  # the test task's small shape: 8 x 300

    def forward(self, x):
        flat = x.reshape(-1).contiguous()
        n = flat.numel()
        grid = (triton.cdiv(n, 256),)
LAUNDER
        out = torch.tensor([max(v, 0.0) * 2.0 + 1.0 for v in vals], dtype=torch.float32)
        y = torch.empty_like(flat)
        copyk[grid](out, y, n, BLOCK=256)
        return y.reshape(x.shape)
'''
#: ways to get the input's values into a tensor whose reads might look exempt (a factory's fresh tensor, a buffer
#: of the model's), each still counted as a host read: the exemption holds only for a storage a factory made
#: without a tensor argument (no ``out=``, no tensor fill value), or a parameter or buffer as the forward found it,
#: and only while its bytes are those it had then; ``numpy`` aliases the memory and is never exempt
LAUNDERINGS = {
    "copy_into_a_factory_tensor": "r = torch.zeros(n)\nr.copy_(flat)\nvals = r.tolist()",
    "write_through_a_view_of_it": "r = torch.randint(0, 2, (n,), dtype=torch.float32)\nr[:].copy_(flat)\n"
                                  "vals = r[:].tolist()",
    "in_place_op_on_it": "r = torch.zeros(n)\nr.add_(flat)\nvals = r.tolist()",
    "own_kernel_writes_it": "r = torch.ones(n)\ncopyk[grid](flat, r, n, BLOCK=256)\nvals = r.tolist()",
    "storage_copied_into_it": "r = torch.zeros(n)\nr.untyped_storage().copy_(flat.untyped_storage())\n"
                              "vals = r.tolist()",
    "set_onto_the_inputs_storage": "r = torch.zeros(n)\nr.set_(flat.clone().untyped_storage(), 0, (n,))\n"
                                   "vals = r.tolist()",
    "factory_given_out": "r = flat.clone()\ntorch.arange(0, out=r)\nr.set_(r.untyped_storage(), 0, (n,))\n"
                         "vals = r.tolist()",
    "factory_given_a_tensor_fill": "vals = [torch.full((1,), v).item() for v in flat]",
    "numpy_alias_of_a_factory_tensor": "r = torch.zeros(n)\na = r.numpy()\ncopyk[grid](flat, r, n, BLOCK=256)\n"
                                       "vals = a.tolist()",
    "buffer_written_in_the_forward": "self.buf.copy_(flat)\nvals = self.buf.tolist()",
    "buffer_replaced_in_the_forward": "self.buf = flat.clone()\nvals = self.buf.tolist()",
}


@pytest.fixture(scope="module")
def runtime_judge(tmp_path_factory):
    """A CPU judge without the static checks: the run-time count alone is under test."""
    from kernelgym.judge.runner import Judge

    return Judge(device="cpu", cache_dir=tmp_path_factory.mktemp("cache"), static_checks=False)


@pytest.mark.parametrize("name", sorted(LAUNDERINGS))
def test_input_values_laundered_into_an_exempt_looking_tensor_are_still_host_reads_under_strict(runtime_judge,
                                                                                                relu_task, name):
    body = "\n".join("        " + line for line in LAUNDERINGS[name].splitlines())
    result = runtime_judge.evaluate(relu_task, HOST_DOES_THE_WORK.replace("LAUNDER", body), profile=SHORT,
                                    torch_policy="strict")
    assert result.status == "rejected", (name, result.status, result.message, result.log_tail[-800:])
    assert result.flags[0]["name"] == "torch_fallback", result.flags
    assert "handed tensor values to host code" in result.flags[0]["reason"], result.flags
    assert runtime_judge.evaluate(relu_task, HOST_DOES_THE_WORK.replace("LAUNDER", body), profile=SHORT,
                                  torch_policy="partial").status == "ok", name  # the cheat works: only strict stops it


#: honest host reads: a seed drawn for a Triton RNG, and a buffer's constants passed by value
HONEST_READS = kernel_forward(indent('''
seed = torch.randint(0, 2 ** 31 - 1, (1,)).item() + int(torch.randint(0, 7, (1,)))
coeffs = self.coeffs.tolist()
assert len(coeffs) == 2 and seed >= 0
return launch(x)'''), init='self.register_buffer("coeffs", torch.ones(2))')


def test_a_drawn_seed_and_a_buffers_constants_read_by_the_host_are_ok_under_strict(judge, relu_task):
    result = judge.evaluate(relu_task, HONEST_READS, profile=SHORT, torch_policy="strict")
    assert result.status == "ok", (result.status, result.message, result.flags)


@pytest.fixture
def host_reads():
    """A :class:`HostReads` installed in this process for one test, and every method and factory it wrapped put
    back after (its wrappers are process-wide: left in place they would count the static checks' and other tests'
    own calls, and a later install would wrap nothing)."""
    import importlib

    import torch

    from kernelgym.judge.profile import CONSTANT_FACTORIES, RANDOM_FACTORIES, HostReads

    saved = []
    for path, names in HostReads.METHODS:
        module, _, cls_name = path.rpartition(".")
        cls = getattr(importlib.import_module(module), cls_name)
        saved += [(cls, name, cls.__dict__[name]) for name in names if name in cls.__dict__]
    saved += [(torch, name, getattr(torch, name)) for name in RANDOM_FACTORIES + CONSTANT_FACTORIES]
    reads = HostReads()
    reads.install()
    try:
        yield reads
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)
        for path, names in HostReads.METHODS:  # a method inherited, not its class's own: the wrapper goes
            module, _, cls_name = path.rpartition(".")
            cls = getattr(importlib.import_module(module), cls_name)
            for name in names:
                if getattr(cls.__dict__.get(name), "_kernelgym_counts", False):
                    delattr(cls, name)
        table = getattr(getattr(torch.jit, "_builtins", None), "_builtin_table", None)
        for name in RANDOM_FACTORIES + CONSTANT_FACTORIES:
            wrapped = getattr(torch, name)
            if table is not None and getattr(wrapped, "_kernelgym_counts", False):
                table.pop(id(wrapped), None)
        assert not any(getattr(getattr(torch, n), "_kernelgym_counts", False)
                       for n in RANDOM_FACTORIES + CONSTANT_FACTORIES)
        assert not getattr(torch.Tensor.item, "_kernelgym_counts", False)


def _armed_reads(reads):
    """A function counting one action's host reads in a judged forward (between ``begin`` and ``end``)."""

    def counted(action, model=None) -> int:
        reads.begin(model)
        try:
            before = reads.count
            action()
            return reads.count - before
        finally:
            reads.end()

    return counted


def test_host_reads_exempt_only_while_a_factory_made_the_storage_and_the_generator_was_not_set(host_reads):
    """In-process: what the worker's counter lets through and what it counts (the judge's worker installs the same
    wrappers). A random draw from a generator the forward set (``set_state``, ``manual_seed``, a ``generator=`` of
    its own) could carry values in: counted. ``empty`` holds whatever its block held (a freed input-derived
    temporary): counted. A torch function mode would be handed the read: counted. Outside ``begin``/``end``
    nothing is exempt."""
    import torch

    counted = _armed_reads(host_reads)
    assert counted(lambda: torch.randint(0, 9, (1,)).item()) == 0
    assert counted(lambda: (torch.rand(3).tolist(), torch.arange(4)[1].item(), bool(torch.ones(1)))) == 0
    state = torch.default_generator.get_state()
    other = torch.Generator().manual_seed(7).get_state()
    assert counted(lambda: (torch.default_generator.set_state(other), torch.rand(1).item())) == 1
    torch.default_generator.set_state(state)
    assert counted(lambda: (torch.manual_seed(3), torch.randint(0, 9, (1,)).item())) == 1
    assert counted(lambda: torch.rand(1, generator=torch.Generator().manual_seed(1)).item()) == 1
    assert counted(lambda: torch.empty(4).tolist()) == 1
    x = torch.randn(3)
    assert counted(lambda: torch.full((1,), x[0]).item()) == 1  # a 0-dim tensor as the fill value
    assert counted(lambda: torch.arange(x.abs().ceil()[0].to(torch.int64)).tolist()) == 1  # ... as the end
    assert counted(lambda: torch.zeros(2, out=x[:2].clone()).tolist()) == 1

    class Device:  # an object of the forward's among the arguments is handed the call: it returns what it likes
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return x.clone()

    assert counted(lambda: torch.ones(3, device=Device()).tolist()) == 1
    assert counted(lambda: torch.zeros(2).numpy()) == 1

    class Mode(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    def under_mode():
        r = torch.zeros(1)
        with Mode():
            r.item()

    assert counted(under_mode) == 1
    reads = host_reads
    before = reads.count
    torch.randint(0, 9, (1,)).item()  # outside a judged forward every read counts
    assert reads.count == before + 1


def test_a_parameter_read_is_exempt_only_as_the_forward_found_it(host_reads):
    import torch

    counted = _armed_reads(host_reads)
    model = torch.nn.Linear(3, 1)
    model.register_buffer("scale", torch.full((2,), 0.5))
    assert counted(lambda: (model.weight.tolist(), float(model.bias), model.scale.tolist()), model) == 0
    x = torch.randn(3)
    assert counted(lambda: (model.weight.data[0].copy_(x), model.weight.tolist()), model) == 1
    assert counted(lambda: (model.scale.set_(x.clone().untyped_storage(), 0, (2,)), model.scale.tolist()), model) == 1
    assert counted(lambda: model.weight.tolist(), None) == 1  # not the model's when begin was called


def test_the_profile_forgives_a_factory_or_read_only_inside_a_range_the_counter_trusted(host_reads):
    """A range of the exempt prefix the forward opened itself, or one seen twice (a forged copy of a trusted
    name), forgives nothing."""
    import torch
    from torch.autograd.profiler import record_function

    from kernelgym.judge.profile import EXEMPT_RANGE, profile_forward

    reads = host_reads

    class Seeded(torch.nn.Module):
        def forward(self, x):
            torch.randint(0, 9, (1,)).item()
            return x

    class Forged(torch.nn.Module):
        def forward(self, x):
            with record_function(EXEMPT_RANGE + "0" * 16):  # a read and a draw past the counter's wrappers
                torch.ops.aten._local_scalar_dense(x[0])
                x.clone().uniform_()
            return x

    class Copied(torch.nn.Module):
        def forward(self, x):
            torch.ones(1).tolist()  # trusted, but seen twice below: trusted nowhere
            name = sorted(reads.trusted)[0]
            with record_function(name):
                torch.ops.aten._local_scalar_dense(x[0])
            return x

    def ops(model):
        x = torch.randn(3)  # before begin: an armed draw outside the profile would leave a trusted name that no
        # profiled range holds, and a copy of it (the test picks one name at random) would then be seen once
        reads.begin(model)
        try:
            report, _ = profile_forward(model, (x,), "cpu", [], None, reads)
        finally:
            reads.end()
        return report["aten_compute_ops"]

    assert ops(Seeded()) == []
    assert {"aten::uniform_", "aten::_local_scalar_dense"} <= set(ops(Forged()))
    assert "aten::_local_scalar_dense" in ops(Copied())


#: a matmul kernel on ``B`` re-laid out by torch (``B.t().contiguous()``: one relayout of an input, allowed on a
#: compute-heavy task), and ``COPIES`` more copies of both inputs beside it
MATMUL_AFTER_RELAYOUT = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        kk = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * N + rn[None, :], mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, allow_tf32=False)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def forward(self, A, B):
        Bt = B.t().contiguous()
        for _ in range(COPIES):
            A, Bt = A.clone(), Bt.clone()
        M, K = A.shape
        N = Bt.shape[1]
        C = torch.empty(M, N, dtype=A.dtype)
        mm_kernel[(triton.cdiv(M, 32), triton.cdiv(N, 32))](A, Bt, C, M, N, K, BM=32, BN=32, BK=16)
        return C
'''


def test_on_a_compute_heavy_task_torch_may_re_lay_out_each_input_once_but_no_more(judge):
    """L1/9 (FLOPs far above its bytes): ``B.t().contiguous()`` before the matmul kernel is ``ok`` under
    ``strict``; copying both inputs once more on top goes past the allowance (half the outputs, the model's state,
    one relayout of each input) and is ``torch_fallback``. A data-movement task keeps the old allowance
    (``tests/test_honest_variety.py::test_a_candidate_refused_by_design_passes_partial_and_is_refused_under_strict``,
    and the copy exploits of ``tests/exploits/test_exploits.py``)."""
    from kernelgym.tasks import load_tasks

    task = load_tasks().get("L1/9_matmul_transposed_b")
    ok = judge.evaluate(task, MATMUL_AFTER_RELAYOUT.replace("COPIES", "0"), profile=SHORT, torch_policy="strict")
    assert ok.status == "ok", (ok.status, ok.message)
    more = judge.evaluate(task, MATMUL_AFTER_RELAYOUT.replace("COPIES", "1"), profile=SHORT, torch_policy="strict")
    assert more.status == "rejected", (more.status, more.message)
    assert more.flags[0]["name"] == "torch_fallback" and "torch's copies" in more.flags[0]["reason"], more.flags


def test_factories_wrapped_by_the_host_read_counter_still_follow_the_device_context():
    """Tensors the wrapped factories make land on the device of ``with torch.device(...)``, as the judge makes every
    input (``inputs.make_inputs``). torch keeps the factories that context places in a set made on first use: made
    after the wrappers, it held them, so torch's own factories went unplaced and every input of every evaluation was
    made on the CPU (on the H100 at b6b903a every honest kernel failed its first forward). A fresh process, where the
    set is not made yet, as in a worker."""
    import subprocess
    import sys

    code = ("from kernelgym.judge.profile import HostReads\n"
            "assert HostReads().install()\n"
            "import torch\n"
            "with torch.device('meta'):\n"
            "    made = [torch.randn(2), torch.rand(2), torch.randint(0, 9, (2,)), torch.zeros(2), torch.ones(2),\n"
            "            torch.full((2,), 1.0), torch.arange(3), torch.empty(2)]\n"
            "print(sorted({str(t.device) for t in made}))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['meta']", out.stdout + out.stderr
