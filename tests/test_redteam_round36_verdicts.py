"""Red team, round 36 (verdicts): regression tests for what a wrong candidate got past the correctness verdict.

Recurrences that forget (L3/26, L3/27, L3/28). Every trial draws its sequence from the task's own generator, so a
recurrence whose state the reference forgets within a few dozen steps lets a kernel restart it from a zero state a
window before each chunk of outputs: the sequence runs in parallel chunks, a fraction of the sequential steps, and
every output is within tolerance, on standard and outlier inputs alike (an outlier's effect fades as any input's
does). The candidate is simulated with the reference model itself run on each chunk's window (an end-to-end run of
a 256-step recurrence on the CPU's interpreter would take minutes). The mend is in the tasks' contract: L3/26 and
L3/27 add a context of each sequence's own to every step of their inputs (``CONTEXT``), which saturates some units'
gates open; L3/28, whose inputs are tokens, draws its forget gates' biases per unit (``FORGET_BIAS``, chrono
initialisation). See docs/SECURITY.md, "Red team, round 36 (verdicts)".
"""

from __future__ import annotations

import pytest

from kernelgym.judge.correctness import compare_outputs
from kernelgym.judge.inputs import OUTLIERS, build_model, make_inputs
from kernelgym.tasks.loading import load_tasks

RECURRENT = {"L3/26": False, "L3/27": False, "L3/28": True}  # task -> bidirectional


def _task(prefix: str):
    return next(t for t in load_tasks() if t.id.split("_")[0] == prefix)


def _windowed(model, x, window: int, chunk: int, both_ways: bool):
    """The reference's outputs for each chunk of ``chunk`` steps, computed from the ``window`` steps before it (and
    after it, ``both_ways``) alone, from a zero state: a recurrence restarted a window back."""
    import torch

    steps = x.shape[1]
    parts = []
    for start in range(0, steps, chunk):
        low = max(0, start - window)
        high = start + chunk + (window if both_ways else 0)
        parts.append(model(x[:, low:high])[:, start - low:start - low + chunk])
    return torch.cat(parts, 1)


@pytest.mark.parametrize("prefix", sorted(RECURRENT))
def test_a_recurrence_restarted_from_a_zero_state_a_window_back_is_wrong(prefix):
    """32 steps of warm-up before each chunk of 16 outputs, at T = 128 (the CPU's other small dimensions): within
    tolerance of the reference before the mend on every task (the state was forgotten within about 20-40 steps),
    beyond it after, on standard and outlier inputs."""
    import torch

    task = _task(prefix)
    module = task.load_module(small=True)
    module.T = 128
    model = build_model(module, module.Model, 1234, "cpu", task.dtype, task.mode)
    for seed, outlier, scale in ((11, 0, 1.0), (12, OUTLIERS, 10.0)):
        x = make_inputs(module, seed, "cpu", outlier)[0]
        with torch.no_grad():
            ref = model(x)
            cheat = _windowed(model, x, 32, 16, RECURRENT[prefix])
        check = compare_outputs((ref,), (cheat,), task.atol * scale, task.rtol)
        assert not check.ok, f"{task.id}: a recurrence restarted 32 steps back passed ({check.max_abs_err:.2g})"


@pytest.mark.parametrize("prefix", sorted(RECURRENT))
def test_the_whole_window_is_the_reference_itself(prefix):
    """The simulation's control: a window reaching back to the first step computes exactly the reference."""
    import torch

    task = _task(prefix)
    module = task.load_module(small=True)
    module.T = 48
    model = build_model(module, module.Model, 1234, "cpu", task.dtype, task.mode)
    x = make_inputs(module, 5, "cpu")[0]
    with torch.no_grad():
        ref = model(x)
        whole = _windowed(model, x, 48, 16, RECURRENT[prefix])
    assert compare_outputs((ref,), (whole,), task.atol / 100, task.rtol / 100).ok
