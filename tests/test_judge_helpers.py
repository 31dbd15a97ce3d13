"""Small judge parts on their own: autotune bound, interpreter fix, compiler-error summaries, coverage accounting."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest


def test_autotune_sweeps_are_bounded():
    code = '''
import triton, triton.language as tl
from kernelgym.judge.autotune import bound_autotune
assert bound_autotune(3)
configs = [triton.Config({"B": 2 ** i}) for i in range(4, 14)]
@triton.autotune(configs=configs, key=["n"])
@triton.jit
def k(x, n, B: tl.constexpr):
    pass
print(len(k.configs))
'''
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "TRITON_INTERPRET": "1"})
    assert out.stdout.strip().splitlines()[-1] == "3", out.stderr[-2000:]


def test_autotune_picks_are_made_again_after_forget_picks():
    """The worker's timing stage calls forget_picks: every sweep benchmarks its configs again at the next launch, the
    on-disk cache of picks stays off even when asked for, and sweeps without a benchmark of their own use the
    judge's (real Triton autotuners on the interpreter; a candidate's own benchmark function counts the sweeps)."""
    code = '''
import torch, triton, triton.language as tl
from kernelgym.judge import autotune as at
assert at.bound_autotune(3)
benched = []
def count(kernel_call, quantiles):
    kernel_call()
    benched.append(1)
    return [1.0, 1.0, 1.0]
configs = [triton.Config({"B": 2 ** i}) for i in range(4, 9)]
@triton.autotune(configs=configs, key=["n"], do_bench=count, cache_results=True)
@triton.jit
def k(x, n, B: tl.constexpr):
    o = tl.program_id(0) * B + tl.arange(0, B)
    tl.store(x + o, tl.load(x + o, mask=o < n) + 1, mask=o < n)
from triton.runtime.autotuner import autotune
@autotune(configs=configs, key=["n"])
@triton.jit
def plain(x, n, B: tl.constexpr):
    pass
x = torch.zeros(64)
k[lambda m: (triton.cdiv(64, m["B"]),)](x, 64)
k[lambda m: (triton.cdiv(64, m["B"]),)](x, 64)
first = len(benched)
assert at.forget_picks({"k": k}) == 1 and at.forget_picks() == 0
k[lambda m: (triton.cdiv(64, m["B"]),)](x, 64)
print(first, len(benched), k.cache_results, plain._do_bench is at.sweep_bench and len(plain.configs) == 3,
      k._do_bench is count,
      at._sweep["ms"] == at.ALONE_SWEEP_MS)
'''
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "TRITON_INTERPRET": "1"})
    assert out.stdout.strip().splitlines()[-1] == "3 6 False True True True", out.stderr[-2000:]


def test_bf16_dot_is_fixed_in_the_interpreter():
    code = '''
import torch, triton, triton.language as tl
from kernelgym.judge import interpreter_fixes
interpreter_fixes.apply()
@triton.jit
def mm(a, b, c, N: tl.constexpr):
    r = tl.arange(0, N)
    x = tl.load(a + r[:, None] * N + r[None, :])
    y = tl.load(b + r[:, None] * N + r[None, :])
    tl.store(c + r[:, None] * N + r[None, :], tl.dot(x, y))
a = torch.randn(16, 16).bfloat16(); b = torch.randn(16, 16).bfloat16(); c = torch.empty(16, 16)
mm[(1,)](a, b, c, N=16)
print(float((c - a.float() @ b.float()).abs().max()))
'''
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "TRITON_INTERPRET": "1"})
    assert float(out.stdout.strip().splitlines()[-1]) < 1e-3, out.stderr[-2000:]


def test_interpreter_accesses_stay_inside_the_launch_arguments():
    """Every load, store and atomic of a kernel on the interpreter must lie inside one of its launch's tensor
    arguments (masked-off lanes aside): raw addresses from integers, and overruns, raise; views and masks work."""
    code = '''
import torch, triton, triton.language as tl
from kernelgym.judge import interpreter_fixes
interpreter_fixes.apply()
@triton.jit
def copy(x, y, n, B: tl.constexpr):
    o = tl.program_id(0) * B + tl.arange(0, B)
    tl.store(y + o, tl.load(x + o, mask=o < n), mask=o < n)
@triton.jit
def peek(addr, out):
    tl.store(out, tl.load(addr.to(tl.pointer_type(tl.int64))))
@triton.jit
def past(out):
    tl.store(out + 1, tl.load(out))
@triton.jit
def add_one(x):
    tl.atomic_add(x + tl.arange(0, 8), 1.0)
def outcome(f):
    try:
        f()
        return "ok"
    except Exception as e:
        return "oob" if "out-of-bounds" in str(e) else repr(e)
x = torch.randn(1000); y = torch.empty(1000); word = torch.zeros(1, dtype=torch.int64); z = torch.zeros(4)
base = torch.arange(20.); view = base[5:15]
print(outcome(lambda: copy[(4,)](x, y, 1000, B=256)), torch.equal(x, y),
      outcome(lambda: copy[(1,)](x, y, 2048, B=2048)),                 # lanes past both arguments
      outcome(lambda: peek[(1,)](id(len) + 24, word)),
      outcome(lambda: past[(1,)](word)),                                # one element past the argument
      outcome(lambda: copy[(1,)](view, y, 10, B=16)), torch.equal(y[:10], base[5:15]),
      outcome(lambda: add_one[(1,)](z)))
'''
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "TRITON_INTERPRET": "1"})
    assert out.stdout.strip().splitlines()[-1] == "ok True oob oob oob ok True oob", out.stderr[-2000:]


def test_on_the_cpu_every_aten_operator_but_data_movement_is_torch_compute():
    """CPU mode has no kernel timeline: an allowlist of allocation, view and copy operators over every namespace of
    the dispatcher (a denylist of compute operators missed ``addmv``, an aten-only rule oneDNN's prepacked
    convolution); a value read out to Python is compute outside the kernels too. On a GPU the
    compute operators of the list (torch's work shows there as other kernels' time)."""
    from kernelgym.judge.profile import coverage_from_events

    events = [(name, False, 0.0) for name in ("aten::empty_like", "aten::view", "aten::copy_", "aten::set_",
                                              "aten::addmv", "aten::_local_scalar_dense", "aten::fmax", "aten::mm",
                                              "mkldnn_prepacked::conv2d_run", "forward", "cudaLaunchKernel")]
    assert coverage_from_events(events, [], strict_aten=True)["aten_compute_ops"] == [
        "aten::_local_scalar_dense", "aten::addmv", "aten::fmax", "aten::mm", "mkldnn_prepacked::conv2d_run"]
    assert coverage_from_events(events, [], strict_aten=False)["aten_compute_ops"] == ["aten::mm"]


def _event(name, *children, device="CPU", kernels=()):
    """A profiler event as :func:`kernelgym.judge.profile.host_only_events` reads one (torch's ``FunctionEvent``
    fields of the same names)."""
    from types import SimpleNamespace

    return SimpleNamespace(name=name, cpu_children=list(children), kernels=list(kernels),
                           device_type=f"DeviceType.{device}")


def test_on_a_gpu_an_operator_that_put_no_work_on_the_device_is_host_compute():
    """A GPU profile's host-side operators: one whose own or nested events launched a kernel, a copy or a fill on
    the device (a CUDA call, or kernels attributed to it) is the device's work, which the kernel time accounts for;
    an operator with none computed on host tensors and counts as torch compute (not data movement, which moves
    inputs either way); a device-to-host copy is counted."""
    from kernelgym.judge.profile import coverage_from_events, host_only_events

    on_device = _event("aten::relu", _event("aten::clamp_min", _event("cudaLaunchKernel")))
    by_kernels = _event("aten::mm", kernels=["sm90_xmma_gemm"])
    on_host = _event("aten::relu", _event("aten::clamp_min"))
    copy_out = _event("aten::_to_copy", _event("aten::copy_", _event("cudaMemcpyAsync")))
    moved = _event("aten::empty_like")
    nested_host = _event("mylib::fused", _event("cudaLaunchKernel"), _event("aten::tanh"))
    roots = [on_device, by_kernels, on_host, copy_out, moved, nested_host]
    events = []
    pending = list(roots)
    while pending:
        event = pending.pop()
        events.append(event)
        pending.extend(event.cpu_children)
    kernel = _event("Memcpy DtoH (Device -> Pageable)", device="CUDA")
    events.append(kernel)
    host = host_only_events(events)
    assert id(on_host) in host and id(on_host.cpu_children[0]) in host and id(moved) in host
    assert id(nested_host.cpu_children[1]) in host and id(nested_host) not in host
    assert not {id(on_device), id(by_kernels), id(copy_out), id(kernel)} & host
    rows = [(e.name, e.device_type.endswith("CUDA"), 1.0, id(e) in host) for e in events]
    report = coverage_from_events(rows, [])
    assert report["aten_compute_ops"] == ["aten::clamp_min", "aten::mm", "aten::relu", "aten::tanh"]
    assert report["host_copies"] == 1
    on_device_only = [r for r in rows if r[0] != "aten::tanh" and not (r[0].startswith("aten::") and r[3])]
    assert coverage_from_events(on_device_only, [])["aten_compute_ops"] == ["aten::mm"]


def test_compiler_errors_are_cut_to_the_first_relevant_lines():
    from kernelgym.judge.compile import summarize_compiler_errors

    log = "\n".join(["[1/3] /usr/local/cuda/bin/nvcc -c x.cu"] + [f"noise line {i}" for i in range(300)] + [
        "/tmp/x/cuda.cu(12): error: identifier \"blockIdxx\" is undefined", "      int i = blockIdxx.x;",
        "/tmp/x/cuda.cu(14): error: expected a \";\""] + [f"more noise {i}" for i in range(300)])
    summary = summarize_compiler_errors(log)
    assert summary.splitlines()[0].endswith('identifier "blockIdxx" is undefined')
    assert len(summary.splitlines()) <= 10 and "noise line" not in summary


def test_coverage_accounts_kernel_time_by_owner():
    from kernelgym.judge.profile import candidate_kernel_names, coverage_from_events

    names = candidate_kernel_names("import triton\n@triton.jit\ndef my_kernel(x):\n    pass\n"
                                   "src = '__global__ void cuda_k(float* x) {}'\n")
    assert names == ["cuda_k", "my_kernel"]
    report = coverage_from_events([("my_kernel", True, 30.0), ("sm90_xmma_gemm_bf16", True, 70.0),
                                   ("aten::mm", False, 0.0)], names)
    assert report["coverage"] == 0.3 and report["launched"] == ["my_kernel"]
    assert report["aten_compute_ops"] == ["aten::mm"]
    assert report["foreign_kernels"][0]["name"].startswith("sm90_xmma")


def test_seeded_inputs_are_identical_when_judges_share_a_process():
    """Judges in threads of one process (a Ray actor) must each draw the inputs their seed names."""
    import time
    import types

    import torch

    from kernelgym.judge.inputs import make_inputs

    def get_inputs():
        out = []
        for _ in range(20):
            out.append(torch.randn(64))
            time.sleep(0.0005)  # give the other thread a chance to draw in between
        return out

    module = types.SimpleNamespace(get_inputs=get_inputs)
    expected = {seed: make_inputs(module, seed, "cpu") for seed in (1, 2)}
    mismatches = []

    def draw(seed):
        for _ in range(5):
            got = make_inputs(module, seed, "cpu")
            mismatches.extend(i for i, (a, b) in enumerate(zip(got, expected[seed])) if not torch.equal(a, b))

    from conftest import run_threads

    run_threads([lambda: draw(1), lambda: draw(2)])
    assert mismatches == []


def test_outlier_positions_are_distinct_so_gpu_scatters_agree():
    """A repeated position would let a GPU scatter keep either of two signs: runner and worker inputs differ."""
    import torch

    from kernelgym.judge.inputs import make_inputs, outlier_positions

    idx, sign = outlier_positions(50, 400, torch.Generator().manual_seed(3))
    assert idx.numel() == len(set(idx.tolist())) and 0 < idx.numel() <= 50
    assert sign.shape == idx.shape and set(sign.tolist()) <= {-1.0, 1.0}
    # the injected tensor changes exactly the distinct positions drawn, so no write order can matter
    import types

    module = types.SimpleNamespace(get_inputs=lambda: [torch.zeros(300_000)])
    (x,) = make_inputs(module, 5, "cpu", outlier=True)
    changed = torch.nonzero(x).reshape(-1)
    pos, _ = outlier_positions(300_000, 300, torch.Generator().manual_seed(5 ^ 0x5EED))
    assert torch.equal(torch.sort(changed).values, torch.sort(pos).values)  # the distinct positions drawn, once each


def test_outlier_positions_fall_one_in_each_stretch_and_the_first_anywhere():
    """outlier_positions draws one position in each of ``count`` consecutive stretches of the flat index (distinct
    without sorting: linear time inside timed blocks) and rotates the list by a drawn offset, so the first position,
    where the wide pair goes, is not always near the start."""
    import torch

    from kernelgym.judge.inputs import outlier_positions

    numel, count = 1_000_003, 1000
    firsts = set()
    for seed in range(20):
        idx, sign = outlier_positions(numel, count, torch.Generator().manual_seed(seed))
        assert idx.numel() == count == sign.numel()
        bounds = torch.arange(count + 1) * numel // count  # stretch i: [bounds[i], bounds[i + 1])
        ordered = torch.sort(idx).values
        assert bool((ordered >= bounds[:-1]).all()) and bool((ordered < bounds[1:]).all())
        firsts.add(int(idx[0]) * 10 // numel)  # which tenth of the tensor the first position is in
    assert len(firsts) >= 5


def test_outputs_cross_through_runner_made_files_for_every_dtype():
    """Round trip worker -> runner for each dtype, empty and 0-d tensors; the file is gone afterwards."""
    import torch

    from kernelgym.judge.protocol import tensor_header
    from kernelgym.judge.transfer import OutputFile, expected_nbytes, tensor_from_raw, write_tensor

    values = [torch.randn(3, 5), torch.randn(7).half(), torch.randn(4, 2).bfloat16(), torch.randn(6).double(),
              torch.randint(-9, 9, (11,), dtype=torch.int64), torch.tensor([True, False, True]),
              torch.randn(2, 3, dtype=torch.complex64), torch.empty(0, 4), torch.tensor(2.5),
              torch.randn(4, 6).t()]  # non-contiguous
    for value in values:
        desc = tensor_header(value)
        with OutputFile(__import__("pathlib").Path("/tmp"), expected_nbytes(desc)) as f:
            path = f.path
            assert write_tensor(str(path), value) == expected_nbytes(desc)
            got = tensor_from_raw(desc, f.read())
        assert not path.exists()
        assert got.dtype == value.dtype and got.shape == value.shape and torch.equal(got, value)


def test_a_worker_that_tampers_with_the_output_file_cannot_hurt_the_runner(tmp_path):
    """Truncated: a clean ProtocolError (read through the descriptor, never mmap: no SIGBUS). Replaced by another
    file or a symlink: the runner still reads the inode it made."""
    import os

    import pytest
    import torch

    from kernelgym.judge.protocol import ProtocolError
    from kernelgym.judge.transfer import OutputFile, tensor_from_raw, write_tensor

    desc = {"dtype": "float32", "shape": [1000]}
    with OutputFile(tmp_path, 4000) as f:
        write_tensor(str(f.path), torch.ones(1000))
        os.truncate(f.path, 100)
        with pytest.raises(ProtocolError):
            f.read()
    secret = tmp_path / "secret"
    secret.write_bytes(b"\x01" * 4000)
    with OutputFile(tmp_path, 4000) as f:
        os.unlink(f.path)
        os.symlink(secret, f.path)
        got = tensor_from_raw(desc, f.read())
        assert torch.equal(got, torch.zeros(1000))  # the runner's own empty file, not the symlink's target
        with pytest.raises(OSError):  # and the worker side refuses to write through a symlink
            write_tensor(str(f.path), torch.ones(1000))
    with pytest.raises(ProtocolError):
        tensor_from_raw({"dtype": "float32", "shape": [3]}, torch.zeros(8, dtype=torch.uint8))
    with pytest.raises(ProtocolError):
        tensor_from_raw({"dtype": "object", "shape": [1]}, torch.zeros(8, dtype=torch.uint8))


def test_chunked_comparison_matches_whole_tensor_comparison(monkeypatch):
    """The verdict, error figures and worst position do not depend on the chunk size."""
    import torch

    from kernelgym.judge import correctness

    g = torch.Generator().manual_seed(0)
    ref = torch.randn(37, 29, generator=g)
    close = ref + 1e-6
    wrong = ref.clone()
    wrong[30, 7] += 5.0
    wrong[2, 3] += 1.0
    nan_ref, nan_out = ref.clone(), ref.clone()
    nan_ref[20, 1] = float("nan")
    nan_out[20, 1] = float("nan")
    nan_out[33, 2] = float("nan")
    cases = [(ref, close, "allclose"), (ref, wrong, "allclose"), (nan_ref, nan_out, "allclose"),
             (nan_ref, nan_ref.clone(), "allclose"), (ref, ref * 1.001, "statistical"),
             (ref, ref * 3, "statistical"), (torch.randint(0, 5, (41,)), torch.randint(0, 5, (41,)), "allclose")]
    whole = [correctness.compare_tensor(r, o, 1e-3, 1e-3, c) for r, o, c in cases]
    monkeypatch.setattr(correctness, "CHUNK", 7)
    chunked = [correctness.compare_tensor(r, o, 1e-3, 1e-3, c) for r, o, c in cases]
    for a, b in zip(whole, chunked):
        assert a.ok == b.ok and a.reason == b.reason and a.worst_index == b.worst_index
        assert (a.max_abs_err is None) == (b.max_abs_err is None)
        if a.max_abs_err is not None:
            assert abs(a.max_abs_err - b.max_abs_err) < 1e-9
    assert [w.ok for w in whole] == [True, False, False, True, True, False, whole[6].ok]
    assert "2 of 1073" in whole[1].reason and "(30, 7)" in whole[1].reason
    assert "first at [33, 2]" in whole[2].reason


def test_an_element_passes_within_tolerance_of_the_eager_or_the_float64_reference():
    """A kernel more exact than a low-precision reference passes; one far from both fails; the float64 reference
    never excuses a NaN where the eager reference has a number, nor changes the dtype that must be returned."""
    import torch

    from kernelgym.judge.correctness import compare_outputs

    exact = torch.linspace(-4, 4, 101, dtype=torch.float64)
    eager = exact.to(torch.bfloat16)
    eager[17] += 0.5  # the low-precision reference's own rounding error, far beyond tolerance at this element
    exact_kernel = exact.to(torch.bfloat16)
    assert not compare_outputs((eager,), (exact_kernel,), 1e-2, 1e-2).ok
    assert compare_outputs((eager,), (exact_kernel,), 1e-2, 1e-2, exacts=(exact,)).ok
    wrong = exact_kernel.clone()
    wrong[40] += 1.0  # off from both references
    assert not compare_outputs((eager,), (wrong,), 1e-2, 1e-2, exacts=(exact,)).ok
    with_nan = exact_kernel.clone()
    with_nan[17] = float("nan")
    check = compare_outputs((eager,), (with_nan,), 1e-2, 1e-2, exacts=(exact,))
    assert not check.ok and "NaN" in check.reason
    assert not compare_outputs((eager,), (exact.float(),), 1e-2, 1e-2, exacts=(exact,)).ok  # dtype is eager's


def test_the_float64_reference_reruns_the_same_model_on_the_same_inputs(tmp_path):
    import torch

    from kernelgym.judge.reference import ReferenceSide
    from kernelgym.tasks import load_tasks

    task = load_tasks().get("L1/94_attention_bf16")
    side = ReferenceSide("cpu", tmp_path, "cpu", torch.__version__)
    eager, = side.outputs(task, 0, 1234, outlier=True)
    exact, = side.exact_outputs(task, 0, 1234, outlier=True)
    assert exact.dtype == torch.float64 and exact.shape == eager.shape
    assert 0 < (exact - eager.double()).abs().max() < 1.0  # the same computation, rounded differently


def test_the_float64_copy_of_the_model_is_made_once_per_model_not_per_comparison(tmp_path):
    """A candidate can make every comparison need the float64 reference (a red-team finding): the copy of the
    model in float64 is kept with the model, and a new model (another init seed) gets a fresh one."""
    import torch

    from kernelgym.judge.reference import ReferenceSide
    from kernelgym.tasks import load_tasks

    task = load_tasks().get("L1/61_conv2d_3x3_square")
    side = ReferenceSide("cpu", tmp_path, "cpu", torch.__version__)
    first, = side.exact_outputs(task, 0, 11)
    kept = side._references[task.key]["exact"][1]
    second, = side.exact_outputs(task, 0, 12)
    assert side._references[task.key]["exact"][1] is kept and not torch.equal(first, second)
    _, model = side.model(task, 0)
    assert all(torch.equal(p.double(), q) for p, q in zip(model.parameters(), kept.parameters()))  # its weights
    side.exact_outputs(task, 1, 11)
    assert side._references[task.key]["exact"][0] is side.model(task, 1)[1]  # one copy at a time, of the new model


def test_the_reference_runs_under_pinned_numerics_whatever_the_process_set(tmp_path):
    """A trainer's ``allow_tf32`` settings in the judge's process reach neither the reference's outputs nor its
    timer; the process gets its own settings back."""
    import torch

    from kernelgym.judge.profiles import get_profile
    from kernelgym.judge.reference import ReferenceSide
    from kernelgym.tasks import task_from_source

    source = (
        "import torch\nimport torch.nn as nn\n"
        "class Model(nn.Module):\n"
        "    def forward(self, x):\n"
        "        return x * 0 + float(torch.backends.cuda.matmul.allow_tf32) + 2 * float(torch.backends.cudnn.allow_tf32)\n"
        "def get_inputs():\n    return [torch.randn(4)]\n"
        "def get_init_inputs():\n    return []\n")
    task = task_from_source(source, "L1/flags", 1)
    side = ReferenceSide("cpu", tmp_path, "cpu", torch.__version__)
    saved = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    try:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = True, False
        out, = side.outputs(task, 0, 1)
        assert torch.equal(out, torch.full((4,), 2.0))  # matmul TF32 off, cuDNN TF32 on
        timer = side.timer(task, get_profile("quick"))
        kept: list = []
        timer.time_block(1, kept)
        assert torch.equal(kept[0][0], torch.full((4,), 2.0))
        assert (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32) == (True, False)
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved


def test_kernelbench_problems_get_kernelbench_tolerances():
    from kernelgym.tasks import task_from_source

    source = "class Model: pass\ndef get_inputs(): pass\ndef get_init_inputs(): pass\n"
    assert (task_from_source(source, "L1/a", 1, task_set="kernelbench").atol,
            task_from_source(source, "L1/a", 1, task_set="kernelbench").rtol) == (1e-4, 1e-4)
    bf16 = source.replace("class Model", "KERNELGYM = {'dtype': 'bfloat16'}\nclass Model")
    assert task_from_source(bf16, "L1/a", 1, task_set="kernelbench").atol == 1e-2
    assert task_from_source(bf16, "L1/a", 1, task_set="kernelgym").atol == 2e-2


def test_profiling_feedback_lists_the_top_kernels_of_both_sides_and_can_be_turned_off():
    from kernelgym.envs.prompt import render_feedback
    from kernelgym.judge.profile import TOP_KERNELS, coverage_from_events
    from kernelgym.judge.result import EvalResult

    events = [(f"aten_kernel_{i}", True, float(i)) for i in range(1, 9)] + [("my_fused_kernel", True, 60.0),
                                                                             ("aten::mm", False, 0.0)]
    report = coverage_from_events(events, ["my_fused_kernel"])
    top = report["top_kernels"]
    assert len(top) == TOP_KERNELS and top[0]["name"] == "my_fused_kernel" and top[0]["own"]
    assert [k["us"] for k in top] == sorted((k["us"] for k in top), reverse=True)
    assert abs(top[0]["share"] - 60.0 / 96.0) < 1e-3 and not top[1]["own"]
    result = EvalResult(task_id="L1/x", status="ok", stage="done",
                        top_kernels={"candidate": top, "reference": [{"name": "ampere_sgemm", "us": 40.0,
                                                                      "share": 1.0, "own": False}]})
    text = render_feedback(result.to_dict())
    assert "Top kernels of your forward" in text and "my_fused_kernel  (yours)" in text
    assert "Top kernels of the PyTorch reference" in text and "ampere_sgemm" in text
    quiet = render_feedback(result.to_dict(), profiling=False)
    assert "Top kernels" not in quiet and quiet.splitlines()[0] == text.splitlines()[0]


def test_parsing_and_compiling_from_many_threads_at_once_never_fails():
    """CPython 3.11's AST conversion keeps its recursion depth per interpreter: unguarded, concurrent parses can
    raise ``SystemError: AST constructor recursion depth mismatch`` (seen with a thread pool of evaluations)."""

    from kernelgym.parsing import compile_source, parse

    source = "def f(x):\n" + "".join(f"    x = ((x + {i}) * (x - {i})) / (1 + x)\n" for i in range(60)) + "    return x\n"
    errors: list[BaseException] = []

    def work():
        try:
            for _ in range(40):
                parse(source)
                compile_source(source, "candidate.py", "exec", dont_inherit=True)
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    from conftest import run_threads

    run_threads([work] * 8)
    assert not errors, errors[:3]


def test_a_cpu_worker_starts_without_dynamo_and_a_later_import_of_it_changes_no_watched_object():
    """The CPU worker's profiler warm-up no longer imports torch._dynamo (a second of every start-up); the one change
    that import makes to what the worker watches (wrapping torch.manual_seed) is made beforehand, so honest code
    that imports dynamo later (torch.library, custom ops, optimizers do it lazily) is not taken for tampering.
    The judge's seeding still works without importing it."""
    code = '''
import sys
import torch
from kernelgym.judge import worker
from kernelgym.judge.inputs import make_inputs
worker._warm_profiler("cpu")
worker._settle_dynamo_patch()
before = worker._watched()
class Task:
    @staticmethod
    def get_inputs():
        return [torch.randn(3)]
first, again = make_inputs(Task, 7, "cpu")[0], make_inputs(Task, 7, "cpu")[0]
print("dynamo after start-up and seeding:", "torch._dynamo" in sys.modules, bool(torch.equal(first, again)))
import torch._dynamo, torch._inductor
after = worker._watched()
print("changed:", sorted(k for k in before if before[k] is not after.get(k)))
'''
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    lines = [line for line in out.stdout.splitlines() if line.startswith(("dynamo", "changed"))]
    assert lines == ["dynamo after start-up and seeding: False True", "changed: []"], out.stdout + out.stderr[-2000:]


def test_a_frame_nested_deeper_than_the_parser_is_a_protocol_error():
    """A worker's frame of deeply nested JSON makes ``json.loads`` raise RecursionError: that is the candidate's
    malformed frame, never an internal judge error (which pipelines may retry or drop)."""
    import struct
    import time

    from kernelgym.judge.protocol import FrameReader, ProtocolError

    read, write = os.pipe()
    try:
        raw = b"[" * 200_000
        os.write(write, struct.pack(">I", len(raw)))
        writer = threading.Thread(target=os.write, args=(write, raw))
        writer.start()
        with pytest.raises(ProtocolError, match="not JSON"):
            FrameReader(read).read_header(time.monotonic() + 10)
        writer.join(timeout=10)
    finally:
        os.close(read)
        os.close(write)


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
def test_integer_and_bool_outputs_are_compared_exactly_whatever_the_tolerance(dtype):
    """An argmax off by one passed under a float32 task's rtol once indices were large enough (1 within 1e-4 of
    10000); indices, counts and masks have no rounding, so any difference is wrong."""
    import torch

    from kernelgym.judge.correctness import compare_outputs

    if dtype == "bool":
        ref, off = torch.tensor([True, False, True]), torch.tensor([True, True, True])
    else:
        ref = torch.tensor([3, 10_000, 23_999], dtype=getattr(torch, dtype))
        off = ref + (ref >= 10_000).to(ref.dtype)
    assert compare_outputs((ref,), (ref.clone(),), 1e-2, 1e-2).ok
    assert not compare_outputs((ref,), (off,), 1e-2, 1e-2).ok


def test_a_statistical_output_that_could_not_be_one_more_draw_of_the_reference_fails():
    """With two more draws of the reference, a random output is compared as one more draw: an honest sampler passes;
    one that ignores its input, one with no randomness, one whose noise ignores the input that scales it and one
    with values of the wrong support fail, each with moments close enough to pass the moments alone."""
    import torch
    import torch.nn.functional as F

    from kernelgym.judge.correctness import compare_outputs

    gen = torch.Generator().manual_seed(0)
    shape = (1024, 1024)
    p = torch.rand(*shape, generator=gen) * 0.6

    def bernoulli():
        return torch.bernoulli(p, generator=gen)

    def judged(out, draw):
        ref, more = draw(), [(draw(),), (draw(),)]
        return compare_outputs((ref,), (out,), 1e-2, 1e-2, "statistical", agains=more), \
            compare_outputs((ref,), (out,), 1e-2, 1e-2, "statistical")

    honest, _ = judged(bernoulli(), bernoulli)
    assert honest.ok, honest.reason
    std = float(bernoulli().std())
    cheats = {
        "ignores its input": (torch.rand(*shape, generator=gen) < 0.3).float(),
        "no randomness": (p - p.mean()) / p.std() * std + 0.3,
        "wrong support": p + torch.randn(*shape, generator=gen) * (p * (1 - p)).sqrt(),
    }
    words = {"ignores its input": "less than a fresh draw", "no randomness": "more than a fresh draw",
             "wrong support": "does not scale with its input"}  # (its spread follows p(1-p), not a fresh draw's)
    for name, out in cheats.items():
        full, moments_only = judged(out, bernoulli)
        assert moments_only.ok, (name, moments_only.reason)  # the moments alone cannot tell
        assert not full.ok and words[name] in full.reason, (name, full.reason)
    # the distribution test alone: the wrong support's values, and an honest draw's
    from kernelgym.judge.statistical import _distribution_gap

    fresh = bernoulli().reshape(-1)
    assert "not distributed as the reference's" in _distribution_gap(cheats["wrong support"].reshape(-1), fresh,
                                                                     1e-2, 1e-2, "cpu")
    assert _distribution_gap(bernoulli().reshape(-1), fresh, 1e-2, 1e-2, "cpu") is None
    # noise whose size should follow a second input: h = logits + N(0, 1) * softplus(scale_logits)
    logits, scale = torch.randn(*shape, generator=gen) * 0.5, torch.randn(*shape, generator=gen)

    def gated():
        return logits + torch.randn(*shape, generator=gen) * F.softplus(scale)

    honest, _ = judged(gated(), gated)
    assert honest.ok, honest.reason
    flat_noise = logits + torch.randn(*shape, generator=gen) * float(F.softplus(scale).pow(2).mean().sqrt())
    full, moments_only = judged(flat_noise, gated)
    assert moments_only.ok and not full.ok and "does not scale with its input" in full.reason, full.reason


def test_a_statistical_output_with_nan_or_inf_where_the_reference_has_none_fails():
    """Moments of NaN are NaN, and no comparison with NaN is true: such an output (poisoned or uninitialised memory)
    used to pass every statistical task."""
    import torch

    from kernelgym.judge.correctness import compare_outputs

    ref = torch.rand(4096, generator=torch.Generator().manual_seed(1))
    for bad in (float("nan"), float("inf"), -float("inf")):
        out = ref.clone()
        out[::2] = bad
        check = compare_outputs((ref,), (out,), 1e-2, 1e-2, "statistical")
        assert not check.ok and "the reference has 0" in check.reason
    noisy = ref.clone()
    noisy[7] = float("nan")
    assert compare_outputs((noisy,), (noisy[torch.randperm(4096)],), 1e-2, 1e-2, "statistical").ok


def test_integer_outputs_are_compared_exactly_and_python_numbers_by_value():
    """int64 values above 2**53 differ by one (a float64 comparison rounds them alike); a Python int reference and
    the float the worker sends for an int output compare by value (red-team notes)."""
    import torch

    from kernelgym.judge.correctness import compare_outputs

    big = torch.tensor([2 ** 60, 7])
    check = compare_outputs((big,), (big + torch.tensor([1, 0]),), 1e-2, 1e-2)
    assert not check.ok and "1 of 2 elements" in check.reason and check.worst_index == [0]
    assert compare_outputs((big,), (big.clone(),), 1e-2, 1e-2).ok
    assert compare_outputs((3,), (3.0,), 1e-2, 1e-2).ok and not compare_outputs((3,), (5.0,), 1e-2, 1e-2).ok
    # a Python int is exact too: within rtol of a large count is not the count (a red-team note)
    assert not compare_outputs((1000,), (1005.0,), 1e-2, 1e-2).ok and compare_outputs((True,), (1.0,), 0, 0).ok
    assert compare_outputs((2.5,), (2.52,), 1e-2, 1e-2).ok  # a float answer keeps its tolerance


def test_a_lazily_conjugated_output_travels_as_its_values():
    import torch

    from kernelgym.judge.transfer import flat_bytes

    x = torch.randn(8, dtype=torch.complex64)
    raw, nbytes = flat_bytes(x.conj())
    assert nbytes == 64 and torch.equal(raw.view(torch.complex64), x.conj().resolve_conj())


def test_random_outputs_drawn_from_different_samples_fail_together():
    """A dropout returning its output and its mask: each alone is a fine draw, but a mask from another sample than
    the output is not how the reference draws them (a red-team finding)."""
    import torch

    from kernelgym.judge.correctness import compare_outputs

    gen = torch.Generator().manual_seed(3)
    x = torch.randn(512, 512, generator=gen) + 1

    def dropout():
        mask = (torch.rand(512, 512, generator=gen) > 0.3).float()
        return x * mask / 0.7, mask

    ref, more = dropout(), [dropout(), dropout()]
    assert compare_outputs(ref, dropout(), 1e-2, 1e-2, "statistical", agains=more).ok
    y, _ = dropout()
    _, other_mask = dropout()
    check = compare_outputs(ref, (y, other_mask), 1e-2, 1e-2, "statistical", agains=more)
    assert not check.ok and "not drawn together" in check.reason, check.reason


@pytest.mark.parametrize("event, names, own", [
    ("_relu_kernel", ["_relu_kernel"], True),                                    # a Triton kernel: its name
    ("relu_kernel(float const*, float*, int)", ["relu_kernel"], True),          # a CUDA kernel's signature
    ("void relu_kernel<float>(float const*, float*)", ["relu_kernel"], True),   # a template's
    ("mine::relu_kernel(float*)", ["relu_kernel"], True),                       # in a namespace of its own
    ("void at::native::vectorized_elementwise_kernel<4, F>(int, F)", ["native"], False),
    ("void at::native::vectorized_elementwise_kernel<4, F>(int, F)", ["vectorized_elementwise_kernel"], False),
    ("cutlass::Kernel2<G>(G::Params)", ["cutlass"], False),
    ("nvjet_sm90_hsh_128x304_64x3_2x1_v_bz_coopA_NNT", ["nvjet_sm90_hsh_128x304_64x3_2x1_v_bz_coopA_NNT"], False),
    ("_relu_kernel_2", ["_relu_kernel"], False),
])
def test_a_kernel_is_the_candidates_by_its_own_name_not_a_word_in_a_library_kernels(event, names, own):
    """A kernel named ``native`` counted every ``at::native::...`` kernel as the candidate's (a seventh red-team
    helper): a name matches where a kernel's signature starts, and never one shaped like a library kernel's."""
    from kernelgym.judge.profile import coverage_from_events

    report = coverage_from_events([(event, True, 10.0)], names)
    assert (report["coverage"] == 1.0) is own



def test_ceilings_are_measured_once_with_the_gpu_alone_and_no_reference_under_their_switches(tmp_path, monkeypatch):
    """Measured beside other evaluations' work the ceilings came out low (honest kernels flagged
    ``above_measured_ceiling``), and the measurement switches TF32 process-wide: it runs inside the judge's
    exclusive hold and the reference numerics' lock, once; later calls read the cache."""
    import contextlib

    import torch

    from kernelgym import hardware
    from kernelgym.judge import numerics
    from kernelgym.judge.reference import ReferenceSide

    held, seen = [], []

    @contextlib.contextmanager
    def alone():
        held.append(True)
        try:
            yield
        finally:
            held.pop()

    def measure(device):
        seen.append((bool(held), numerics._lock.locked()))
        return {"tf32": 400.0}

    monkeypatch.setattr(hardware, "measure_ceilings", measure)
    side = ReferenceSide("cpu", tmp_path, "fake-gpu", torch.__version__)
    side.on_cpu = False  # as on a GPU: the measurement itself is the fake above
    assert side.ceilings(alone=alone) == {"tf32": 400.0}
    assert side.ceilings(alone=alone) == {"tf32": 400.0}
    assert seen == [(True, True)] and not numerics._lock.locked()


def test_a_flop_rate_is_measured_against_the_ceiling_of_the_tasks_own_arithmetic(tmp_path, monkeypatch):
    """An honest int8 GEMM with float32 outputs ran at 596 TFLOP/s on the H200 (c27665c), beyond TF32's peak of 495:
    measured against its dtype's precision it was rejected as physically impossible. Against the precision the task
    names (int8) it is 30% of the peak; the same rate claimed by a task without that declaration is still rejected."""
    import dataclasses

    from kernelgym.hardware import PEAKS, HardwareSpec
    from kernelgym.judge.result import EvalResult
    from kernelgym.judge.runner import Judge, Verdict
    from kernelgym.tasks import load_tasks

    task = load_tasks().get("X/1_int8_gemm_w8a8_rowcol_scale")
    assert task.precision == "int8"
    judge = Judge(device="cpu", cache_dir=tmp_path)
    monkeypatch.setattr(judge.reference, "ceilings", lambda alone=None: {})  # the vendor's peaks alone
    monkeypatch.setattr(judge, "hardware", lambda: HardwareSpec(kind="gpu", name="NVIDIA H200", device="cuda:0",
                                                                peaks=PEAKS["H200"]))
    runtime_ms = task.evaluate_formula("flops") / 596e12 * 1e3
    res = EvalResult(task_id=task.id, runtime_ms=runtime_ms)
    judge._record_efficiency(res, task)
    assert res.mfu == pytest.approx(596 / PEAKS["H200"]["int8"], rel=1e-3) and not res.flags
    with pytest.raises(Verdict, match="faster than the hardware allows"):
        judge._record_efficiency(EvalResult(task_id=task.id, runtime_ms=runtime_ms),
                                 dataclasses.replace(task, precision=None))


@pytest.mark.parametrize("text", ["\n" * 199_999 + "x", "```" + "a" * 199_990 + "x", " " * 199_999 + "x",
                                  "```\n" * 49_000, "class\n" * 33_000, "`" * 199_999, "```py " * 33_000],
                         ids=["newlines", "fence_letters", "spaces", "open_fences", "class_lines", "backticks",
                              "fences_on_one_line"])
def test_the_runners_reading_of_an_action_is_linear_in_its_length(text):
    """The runner reads every action (and a compile error's log) in the thread that keeps other evaluations'
    deadlines, under the interpreter lock: 200,000 newlines took 61 s in a quadratic search for ``class ModelNew``
    and a concurrent honest evaluation timed out (a red-team helper). A linear reading takes milliseconds; the bound
    here is far from both."""
    import time

    from kernelgym.judge.compile import summarize_compiler_errors
    from kernelgym.judge.extract import ExtractionError, extract_code

    started = time.perf_counter()
    with pytest.raises(ExtractionError):
        extract_code(text)
    summarize_compiler_errors(text.replace("a", "ptxas "))
    assert time.perf_counter() - started < 3.0


def test_extraction_keeps_its_contract():
    from kernelgym.judge.extract import ExtractionError, extract_code

    assert extract_code("Here:\n```python\nclass ModelNew:\n    pass\n```\nDone.") == "class ModelNew:\n    pass\n"
    assert extract_code("```text\nnotes\n```\n```python3 (final)\nclass ModelNew: pass\n```") == \
        "class ModelNew: pass\n"
    assert extract_code("import torch\n\n  class ModelNew:\n    pass\n").startswith("import torch")
    with pytest.raises(ExtractionError, match="ModelNew"):
        extract_code("```python\nclass Model:\n    pass\n```")


def test_a_block_never_closed_is_the_program_from_its_opening_fence():
    """An answer cut off at the token limit (or whose closing fence was left out): the block's body, not the whole
    text with its prose (which was a syntax error at line 1, a QA finding); a closed block before it is a sketch the
    answer went on from; a stray closing fence alone, or an unclosed block of another language, changes nothing."""
    from kernelgym.judge.extract import extract_code

    program = "import torch\nclass ModelNew:\n    pass\n"
    assert extract_code("Here is my kernel:\n```python\n" + program) == program
    assert extract_code("First:\n```python\nclass ModelNew: x = 1\n```\nBetter:\n```py\n" + program) == program
    assert extract_code("Done:\n```python\n" + program + "```\nNotes:\n```text\nclass ModelNew\n") == program
    stray = program + "```\n"
    assert extract_code(stray) == stray


def test_a_poll_that_came_back_late_moves_the_deadlines_on_within_a_credit():
    """The runner's thread held (another evaluation's work under the interpreter lock) is not the worker's time:
    a poll back more than the grace late moves the deadlines on by the excess, up to a credit per evaluation; a
    poll back on time moves nothing (a hung worker still times out)."""
    import time
    import types

    from kernelgym.judge.session import POLL_S, STALL_CREDIT_S, STALL_GRACE_S, Session

    moved = []
    fake = types.SimpleNamespace(_stall_credit=STALL_CREDIT_S, postpone=moved.append)
    now = time.monotonic()
    Session._forgive_runner_stall(fake, now - POLL_S)                        # on time
    Session._forgive_runner_stall(fake, now - POLL_S - STALL_GRACE_S / 2)    # late, within the grace
    assert moved == []
    Session._forgive_runner_stall(fake, now - POLL_S - 60.0)                 # held for a minute
    assert len(moved) == 1 and 59.0 < moved[0] < 61.0
    Session._forgive_runner_stall(fake, now - POLL_S - 100.0)                # the credit's rest, not more
    assert abs(sum(moved) - STALL_CREDIT_S) < 1e-6 and fake._stall_credit == 0
    Session._forgive_runner_stall(fake, now - POLL_S - 100.0)
    assert len(moved) == 2


def test_an_output_must_be_contiguous_or_laid_out_as_the_references():
    """``correctness.check_layout`` (a sixteenth red-team helper, 2026-12-07): the judge makes every output dense
    outside the timed interval, so a view where the reference materialises (L1/100's permutation, an expanded row,
    a lazy negative view) left work to the judge. Contiguous passes, and the reference's own strides; a lazy view
    only where the reference's is one; only the reference output's device; an undescribed layout never."""
    import torch

    from kernelgym.judge.correctness import check_layout
    from kernelgym.judge.timing import layout

    def desc(t):
        return {"kind": "tensor", "dtype": "float32", "shape": list(t.shape), **layout(t)}

    ref = torch.ones(3, 4)
    assert check_layout(ref, desc(torch.zeros(3, 4)), 0) is None
    assert check_layout(ref, desc(torch.zeros(1, 4).expand(3, 4)), 0).reason.find("neither contiguous") > 0
    assert not check_layout(ref, desc(torch.zeros(4, 3).t()), 0).ok
    assert not check_layout(ref, desc(torch._neg_view(torch.zeros(3, 4))), 0).ok
    transposed_ref = torch.ones(4, 3).t()  # a reference returning a view: its strides, or contiguous, pass
    assert check_layout(transposed_ref, desc(torch.zeros(4, 3).t()), 0) is None
    assert check_layout(transposed_ref, desc(torch.zeros(3, 4)), 0) is None
    assert check_layout(torch._neg_view(torch.ones(3, 4)), desc(torch._neg_view(torch.zeros(3, 4))), 0) is None
    assert check_layout(ref, {**desc(torch.zeros(3, 4)), "device": "cuda:1"}, 0).reason.find("on cuda:1") > 0
    for missing in ("strides", "contiguous", "lazy", "device", "aliases_input"):
        partial = {k: v for k, v in desc(torch.zeros(3, 4)).items() if k != missing}
        assert "not described" in check_layout(ref, partial, 0).reason
    assert check_layout(1.5, {"kind": "scalar", "value": 1.5}, 0) is None
    empty = torch.zeros(0, 4)  # zero-size and size-1 dimensions: contiguous whatever their strides
    assert check_layout(torch.ones(0, 4), desc(empty), 0) is None
    assert check_layout(torch.ones(3, 1), desc(torch.zeros(1, 3).t()), 0) is None


def test_a_fresh_output_in_its_elements_order_or_the_references_layout_passes_whatever_its_size_1_strides():
    """``correctness.check_layout`` (a twenty-first red-team helper, 2026-12-07): a slice of a padded buffer the
    forward wrote (``buf[:, :N]``) lies in its elements' order, and the stride of a size-1 dimension addresses
    nothing: both were refused, though the judge's copy-out only leaves gaps out. A permuted layout (channels_last of
    a contiguous reference, a transposed buffer), a step and an expanded view are still refused."""
    import torch

    from kernelgym.judge.correctness import check_layout
    from kernelgym.judge.timing import layout

    def desc(t):
        return {"kind": "tensor", "dtype": "float32", "shape": list(t.shape), **layout(t)}

    ref = torch.ones(6, 5)
    assert check_layout(ref, desc(torch.zeros(6, 8)[:, :5]), 0) is None  # padded rows
    assert check_layout(ref, desc(torch.zeros(2, 6, 8)[1, :, 1:6]), 0) is None
    assert check_layout(ref, desc(torch.zeros(12, 5)[::2]), 0) is None  # whole rows with gaps between them
    for refused in (torch.zeros(5, 6).t(), torch.zeros(6, 10)[:, ::2], torch.zeros(1, 5).expand(6, 5),
                    torch.zeros(20).as_strided((6, 5), (3, 1))):  # overlapping rows
        bad = check_layout(ref, desc(refused), 0)
        assert bad is not None and "allocate the output contiguous" in bad.reason, refused.stride()
    image = torch.ones(2, 3, 4, 4)
    assert not check_layout(image, desc(torch.zeros(2, 3, 4, 4).to(memory_format=torch.channels_last)), 0).ok
    channels_last_ref = image.to(memory_format=torch.channels_last)
    assert check_layout(channels_last_ref, desc(torch.empty_like(channels_last_ref)), 0) is None
    odd_ref = torch.ones(5, 6).t().unsqueeze(1)  # strides (1, 30, 6): its size-1 dimension's, any other
    assert check_layout(odd_ref, desc(torch.empty_strided((6, 1, 5), (1, 12345, 6))), 0) is None
    assert not check_layout(odd_ref, desc(torch.empty_strided((6, 1, 5), (2, 1, 12))), 0).ok


def test_torchs_copies_inside_a_launch_count_beyond_the_interpreters_own():
    """``profile.torch_copied_bytes`` (a twenty-first red-team helper, 2026-12-07): copies inside a range named as
    the interpreter's launches were all left out, so a forward that opened such a range itself (its name read from
    the worker's memory) or copied inside a real launch passed ``strict``; now only the bytes of the launches' tensor
    arguments' storages are, and ``narrow_copy`` (a kernel of its own) counts."""
    import torch
    from torch.autograd.profiler import record_function

    from kernelgym.judge import profile as P

    x = torch.randn(64, 300)
    with P.profiler("cpu") as prof:
        with record_function(P.LAUNCH_RANGE):
            x.t().contiguous()
    events = P.events_of(prof)
    assert P.torch_copied_bytes(events) == x.numel() * 4  # no launch: nothing allowed
    assert P.torch_copied_bytes(events, 1000) == x.numel() * 4 - 1000
    assert P.torch_copied_bytes(events, 10 ** 9) == 0  # never more than the range's own
    with P.profiler("cpu") as prof:
        x.narrow_copy(0, 0, 32)
    assert P.torch_copied_bytes(P.events_of(prof)) == 32 * 300 * 4
    P.LaunchCounter().install()  # binds the storage functions
    y = x[:1]
    assert P._argument_storage_bytes((y, x, (x.reshape(-1), 3), "s"), {"z": torch.empty(7)}) == x.numel() * 4 + 28
