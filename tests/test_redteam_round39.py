"""Red team, round 39: the aliasing check of an output against its call's inputs, and the batch plan's shared
eager figure.

The end-to-end attacks run with the static guards off (the run-time defence must hold on its own), on the CPU judge
(the Triton interpreter), as the earlier rounds' tests do."""

from __future__ import annotations

import pytest

from conftest import SHORT

#: a task whose whole work is a copy: the first half of a matrix's rows, materialised (as the sixteenth red-team
#: helper's ``x[:n].clone()``), at a size where the copy is most of a call's time on the CPU
HEAD_ROWS_TASK = '''"""The first half of a matrix's rows, copied."""
import torch
import torch.nn as nn

KERNELGYM = {{"category": "Index", "dtype": "float32", "flops": "B * D", "bytes": "4 * B * D",
             "small": {{"B": {rows}, "D": {cols}}}}}

B = {rows}
D = {cols}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x[: x.shape[0] // 2].clone()


def get_inputs():
    return [torch.randn(B, D)]


def get_init_inputs():
    return []
'''

#: a candidate for it: an honest Triton copy of the first half of the rows, or (``CHEAT``) in every timed call (told
#: by the GIL switch interval, as the earlier rounds' candidates do) a view of the input's own memory, the input then
#: pointed at a fresh storage of its own (``ROUTE``) so that no storage of the call's inputs overlaps the output when
#: the judge looks after the call; the fresh storage gets the input's bytes only at the positions the judge samples
#: an input at before and after a timed call (``timing._sample_positions``, kept at module level for the block), so
#: the input reads as unwritten. The judge's snapshot (a ``clone`` after the timed interval) then makes the copy that
#: is the task's whole work; the timed call launches a token kernel (every timed call must launch one of its own)
CANDIDATE = '''
import sys
import torch
import torch.nn as nn
import triton
import triton.language as tl

CHEAT = {cheat}
ROUTE = {route!r}
T = sys.modules["kernelgym.judge.timing"]


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


def copied(x, rows):
    y = torch.empty((rows, x.shape[1]), dtype=x.dtype, device=x.device)
    n = y.numel()
    copy_kernel[(triton.cdiv(n, 16384),)](x, y, n, BLOCK=16384)
    return y


def repointed(x, rows):
    token = torch.empty(1, dtype=x.dtype, device=x.device)
    copy_kernel[(1,)](x, token, 1, BLOCK=16)
    y = x.view(x.shape)[:rows]  # the input's own memory, a storage the judge will not find among the inputs
    if ROUTE == "dlpack":  # ... held by a storage object of its own
        y = torch.from_dlpack(y)
    raw = x.reshape(-1).view(torch.uint8)
    fresh = torch.empty_like(x)
    found = [p for key, p in T._sample_positions.items() if key[1] == 0 and key[2] == raw.numel()]
    if found:  # the positions the judge samples this block's inputs at: only those bytes are copied
        fresh.reshape(-1).view(torch.uint8)[found[-1]] = raw[found[-1]]
    if ROUTE in ("set_", "dlpack"):
        x.set_(fresh.untyped_storage(), 0, x.shape, x.stride())
    else:
        x.data = fresh
    return y


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        rows = x.shape[0] // 2
        if CHEAT == "every_call":  # the input moved onto a whole copy of itself (as dear as the work): no cheat
            token = torch.empty(1, dtype=x.dtype, device=x.device)
            copy_kernel[(1,)](x, token, 1, BLOCK=16)
            y = x.view(x.shape)[:rows]
            x.set_(x.clone().untyped_storage(), 0, x.shape, x.stride())
            return y
        if CHEAT and sys.getswitchinterval() < 1e-3:  # a timed call
            return repointed(x, rows)
        return copied(x, rows)
'''

ROWS, COLS = 1024, 4096


@pytest.fixture(scope="module")
def head_rows(tmp_path_factory):
    from kernelgym.testing.candidates import write_task

    text = HEAD_ROWS_TASK.format(rows=ROWS, cols=COLS)
    return write_task(tmp_path_factory.mktemp("tasks"), "1_head_rows_copied", text)


@pytest.mark.timeout(300)
def test_an_honest_copy_of_the_head_rows_is_ok(runtime_judge, head_rows):
    result = runtime_judge.evaluate(head_rows, CANDIDATE.format(cheat=False, route="set_"), profile=SHORT)
    assert result.status == "ok", (result.message, result.flags)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("route", ["set_", "data", "dlpack"])
def test_an_output_over_an_inputs_memory_the_input_was_moved_off_during_the_call_is_refused(route, runtime_judge,
                                                                                            head_rows):
    """Each timed call returned a view of its input and pointed the input at another storage before returning
    (``x.set_(...)`` or ``x.data = ...``): the aliasing check compared the output's storage with the inputs' storages
    as they were *after* the call, so it found no overlap, and the inputs' samples (positions readable in the worker)
    were kept; the judge's snapshot made the copy, untimed. ``ok`` on every route before the mend, at 8.8-20.9 ms per
    call against the honest Triton copy's 232-240 ms on this CPU (the timed call costs a token launch and a 64 KiB
    gather); ``dlpack`` returns the view through a storage object of its own. Now an output is also checked against
    the storages the inputs had when the call began (``timing.held_storages``)."""
    result = runtime_judge.evaluate(head_rows, CANDIDATE.format(cheat=True, route=route), profile=SHORT)
    assert result.status == "incorrect", (result.status, result.message, result.speedup, result.runtime_ms)
    assert "shares memory with an input" in result.message, result.message


@pytest.mark.timeout(300)
def test_a_trials_output_is_checked_against_the_inputs_memory_as_the_forward_got_it(runtime_judge, head_rows):
    """The same check in the trials and the profiled forward (the worker's ``send_outputs``): a forward that returned a
    view of its input and moved the input onto a whole copy of itself (its values kept, so no ``input_mutation``) was
    ``ok`` before the mend; it returns the input's memory where the reference returns a tensor of its own."""
    result = runtime_judge.evaluate(head_rows, CANDIDATE.format(cheat=repr("every_call"), route="set_"), profile=SHORT)
    assert result.status == "incorrect", (result.status, result.message)
    assert "shares memory with an input" in result.message and "trial" in result.message, result.message
