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
#: the tasks whose restart is refused at the CPU's small shapes too; L3/26's contract is tuned at its GPU shapes,
#: where an honest TF32 kernel must also pass (its test below runs the restart there, 32 to 128 steps back)
SMALL_SHAPE_RESTART = ("L3/27", "L3/28")


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


@pytest.mark.parametrize("prefix", SMALL_SHAPE_RESTART)
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


# The mend's other side, at the GPU's shapes: an honest kernel computing in TF32 passes

def _tf32(t):
    """float32 with the 13 low fraction bits cleared: what the tensor cores keep of a ``tl.dot`` operand."""
    import torch

    return (t.contiguous().view(torch.int32) & -8192).view(torch.float32)


def _tf32_lstm(model, x):
    """``model``'s two-layer LSTM and head with every matmul's operands in TF32 (an honest Triton kernel on a GPU),
    the gates and states in float32."""
    import torch

    lstm, inp = model.lstm, x
    for layer in range(lstm.num_layers):
        w_ih, w_hh = getattr(lstm, f"weight_ih_l{layer}"), getattr(lstm, f"weight_hh_l{layer}")
        bias = getattr(lstm, f"bias_ih_l{layer}") + getattr(lstm, f"bias_hh_l{layer}")
        gates_in = _tf32(inp) @ _tf32(w_ih).T + bias
        h = x.new_zeros(x.shape[0], lstm.hidden_size)
        c = torch.zeros_like(h)
        steps = []
        for t in range(x.shape[1]):
            i, f, g, o = (gates_in[:, t] + _tf32(h) @ _tf32(w_hh).T).chunk(4, 1)
            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
            h = torch.sigmoid(o) * torch.tanh(c)
            steps.append(h)
        inp = torch.stack(steps, 1)
    return _tf32(inp) @ _tf32(model.fc.weight).T + model.fc.bias


@pytest.mark.slow
def test_an_honest_tf32_lstm_passes_at_the_gpu_shapes_where_a_restart_up_to_128_steps_back_does_not():
    """L3/26 at its GPU shapes (16 of its 64 sequences): the context of round 36 made the LSTM keep its state, and
    with the weights it had then (std 2/sqrt(fan), context 4) an honest TF32 kernel was off by 3.7-5.6 times the
    tolerance on standard trials (its bundled Triton solution `incorrect` on an H100, thirty-seventh session);
    now within it on standard and outlier trials, while a restart 32, 64 or 128 steps back stays beyond it."""
    import torch

    task = _task("L3/26")
    module = task.load_module(small=False)
    module.B = 16
    model = build_model(module, module.Model, 1234, "cpu", task.dtype, task.mode)
    for seed, outlier, scale in ((21, 0, 1.0), (22, 0, 1.0), (24, OUTLIERS, 10.0)):
        x = make_inputs(module, seed, "cpu", outlier)[0]
        with torch.no_grad():
            ref = model(x)
            honest = compare_outputs((ref,), (_tf32_lstm(model, x),), task.atol * scale, task.rtol)
            assert honest.ok, f"seed {seed}: {honest.reason}"
            if not outlier:
                for window in (32, 64, 128):
                    cheat = compare_outputs((ref,), (_windowed(model, x, window, 32, False),), task.atol, task.rtol)
                    assert not cheat.ok, f"seed {seed}: a restart {window} steps back passed"
