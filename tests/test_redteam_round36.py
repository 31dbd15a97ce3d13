"""Red team, round 36 (timing path): the seals of round 35 were made at the block's end from the worker's lists, which
code of the candidate's that runs inside the block (a later call's forward, a finalizer freed with a call's outputs)
can rewrite first, at the cost of a gather, not of the call's work.

Each attack runs with the static guards off (the run-time defence must hold on its own), on the CPU, on test tasks
written here: the scaled relu with outputs larger than a snapshot's sample (on the small test task every byte is
sampled), and a materialised transpose.
"""

from __future__ import annotations

import pytest

from kernelgym.judge.runner import Judge
from kernelgym.testing.candidates import PARKED_FINALIZER, RELU_TRUE_SAMPLE, indent, kernel_forward, \
    resized_relu_task, write_task
from conftest import SHORT, assert_rejected_for


#: the scaled relu at 64 x 1024 on the CPU: 256 KiB of output, four times a snapshot's sample
ROWS, COLS = 64, 1024

TRANSPOSE_TASK = '''"""Test task: a transpose, materialised."""
import torch
import torch.nn as nn

KERNELGYM = {"category": "Index", "dtype": "float32", "flops": "0", "bytes": "8 * B * D",
             "small": {"B": 64, "D": 96}}

B = 4096
D = 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.t().contiguous()


def get_inputs():
    return [torch.randn(B, D)]


def get_init_inputs():
    return []
'''


#: each timed call returns garbage at once (its kernel launched on one element), and its real work is written into
#: the judge's snapshots after the block (PARKED_FINALIZER); a finalizer freed with the call's output, inside the block
#: but after the call's sample was taken, replaces that sample in the worker's list by the true output's bytes at the
#: sample's key (no function of the judge's is replaced: the watch list stays whole)
SAMPLES_FORGED = kernel_forward(indent('''
if sys.getswitchinterval() < 1e-3:  # a timed call
    keep = x.clone()
    PENDING.append(keep)
    park(finish_block)
    k[(1,)](x, torch.empty_like(x), 1, BLOCK=256)
    y = torch.empty_like(x)
    weakref.finalize(y, forge, keep, worker().snapshot_samples)
    return y
return launch(x)'''), imports="import gc\nimport sys\nimport weakref", extra=PARKED_FINALIZER + RELU_TRUE_SAMPLE + '''

def forge(x, samples):
    key, _ = samples[-1]
    samples[-1] = (key, true_sample(x, key))
''')

#: the same, with the judge's own ``snapshot_sample`` swapped for the forgery in each timed call and put back by the
#: finalizer once the call's sample is taken, before the block's end, where the watch list is compared
SAMPLER_SWAPPED = kernel_forward(indent('''
if sys.getswitchinterval() < 1e-3:  # a timed call
    keep = x.clone()
    PENDING.append(keep)
    park(finish_block)
    k[(1,)](x, torch.empty_like(x), 1, BLOCK=256)
    y = torch.empty_like(x)
    T.snapshot_sample = lambda values, key: true_sample(keep, key)
    weakref.finalize(y, restore)
    return y
return launch(x)'''), imports="import gc\nimport sys\nimport weakref", extra=PARKED_FINALIZER + RELU_TRUE_SAMPLE + '''
T = sys.modules["kernelgym.judge.timing"]
ORIGINAL = T.snapshot_sample


def restore():
    T.snapshot_sample = ORIGINAL
''')

TRANSPOSE_HEAD = '''
import gc
import sys
import weakref
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def t_kernel(x_ptr, y_ptr, R, C, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < R * C
    v = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + (offs % C) * R + offs // C, v, mask=mask)


def launch(x):
    x = x.contiguous()
    R, C = x.shape
    y = torch.empty((C, R), device=x.device, dtype=x.dtype)
    t_kernel[(triton.cdiv(R * C, 64),)](x, y, R, C, BLOCK=64)
    return y
'''

HONEST_TRANSPOSE = TRANSPOSE_HEAD + '''
class ModelNew(nn.Module):
    def forward(self, x):
        return launch(x)
'''

#: each timed call returns the transposed *view* of its input (the judge's snapshot, a clone, does the transpose,
#: untimed), and a finalizer freed with it, after the call's layout was taken, rewrites that layout in the worker's
#: list as a fresh contiguous tensor's: the layout and aliasing checks read the rewritten one
LAYOUT_FORGED = TRANSPOSE_HEAD + '''
WORKER = []


def worker():
    if not WORKER:
        WORKER.append(next(o for o in gc.get_objects() if type(o).__name__ == "Worker"))
    return WORKER[0]


def dense(layouts, shape):
    entry = dict(layouts[-1][0])
    entry.update(strides=[shape[1], 1], contiguous=True, aliases_input=False)
    layouts[-1] = (entry,)


class ModelNew(nn.Module):
    def forward(self, x):
        if sys.getswitchinterval() < 1e-3:  # a timed call
            t_kernel[(1,)](x, torch.empty(1, device=x.device), 0, 0, BLOCK=64)
            y = x.t()
            weakref.finalize(y, dense, worker().snapshot_layouts, list(y.shape))
            return y
        return launch(x)
'''


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    root = tmp_path_factory.mktemp("tasks")
    return {"relu": resized_relu_task(root / "relu", ROWS, COLS, on_cpu=True),
            "transpose": write_task(root / "transpose", "1_transpose", TRANSPOSE_TASK)}


@pytest.mark.timeout(120)
@pytest.mark.parametrize("task, text", [("relu", kernel_forward(indent("return launch(x)"))),
                                        ("transpose", HONEST_TRANSPOSE)], ids=["relu", "transpose"])
def test_honest_kernels_of_these_tasks_are_still_ok(runtime_judge, tasks, task, text):
    result = runtime_judge.evaluate(tasks[task], text, profile=SHORT)
    assert result.status == "ok", (result.message, result.flags)


@pytest.mark.timeout(120)
def test_samples_rewritten_with_the_true_outputs_bytes_at_their_keys_are_caught(runtime_judge, tasks):
    """Before the mend: ``ok`` at 2.6 ms per call against the honest kernel's 607 ms at 256 x 1024 (CPU
    interpreter), no flag: the seals were made at the block's end from the worker's list of samples, which the
    finalizer had rewritten, and the snapshots were filled after the block. Now each call's seal leaves the worker
    right after its sample is taken."""
    result = runtime_judge.evaluate(tasks["relu"], SAMPLES_FORGED, profile=SHORT)
    assert_rejected_for(result, "was changed after the call")


@pytest.mark.timeout(120)
def test_a_layout_rewritten_after_the_call_is_caught(runtime_judge, tasks):
    """Before the mend: ``ok`` at 3.2 ms per call against the honest transpose's 79 ms: the timed calls returned a
    view, the judge's snapshot did the transpose untimed, and the layout the seal and the check read was rewritten."""
    result = runtime_judge.evaluate(tasks["transpose"], LAYOUT_FORGED, profile=SHORT)
    assert_rejected_for(result, "layout is no longer what the worker sent")


@pytest.mark.timeout(120)
@pytest.mark.xfail(strict=True, reason="not closed: a judge function swapped inside a block and put back before its "
                                       "end is not seen by the watch, compared at the block's end (SECURITY.md, "
                                       "round 36)")
def test_the_judges_sampler_swapped_for_one_call_and_put_back_is_caught(runtime_judge, tasks):
    result = runtime_judge.evaluate(tasks["relu"], SAMPLER_SWAPPED, profile=SHORT)
    assert_rejected_for(result, "")


def test_these_attacks_are_refused_by_the_static_checks_too(tmp_path, tasks):
    judge = Judge(device="cpu", cache_dir=tmp_path)
    try:
        for text in (SAMPLES_FORGED, SAMPLER_SWAPPED, LAYOUT_FORGED):
            result = judge.evaluate(tasks["relu"], text, profile=SHORT)
            assert result.status == "rejected" and "forbidden_import" in [f["name"] for f in result.flags], \
                (result.status, result.message, result.flags)
    finally:
        judge.close()
