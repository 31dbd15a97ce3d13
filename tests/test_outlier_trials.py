"""Outlier trials (kernelgym.judge.inputs.SIGNED_OUTLIERS): outliers of either sign, unless the reference's own outputs
on those are not finite, in which case the outliers keep each input's sign. A kernel that is wrong wherever the
reference is defined (a cumulative product through logarithms, wrong for negative values) stays incorrect; a kernel
that differs only where the inputs left the function's domain (a negative probability under a logarithm) does not.
Where the reference raises on outliers of either kind (a loss that refuses probabilities outside [0, 1]), the
outlier trial runs on standard inputs: the task's domain has no outliers, and the judge's error is not the
candidate's verdict."""

from __future__ import annotations

import textwrap
import types

import pytest

from kernelgym.judge.inputs import OUTLIERS, SIGNED_OUTLIERS, WIDE_OUTLIERS, make_inputs
from kernelgym.testing.candidates import indent, kernel_forward
from kernelgym.tasks.task import task_from_source
from conftest import SHORT



def test_signed_outliers_keep_each_tensors_sign_and_either_sign_ones_do_not():
    import torch

    module = types.SimpleNamespace(get_inputs=lambda: [torch.rand(200_000), -torch.rand(200_000),
                                                        torch.randn(200_000)])
    plain = make_inputs(module, 11, "cpu")
    either = make_inputs(module, 11, "cpu", OUTLIERS)
    signed = make_inputs(module, 11, "cpu", SIGNED_OUTLIERS)
    assert bool((either[0] < 0).any()) and bool((either[1] > 0).any())
    assert bool((signed[0] >= 0).all()) and bool((signed[1] <= 0).all())
    for x, s in zip(plain, signed):  # outliers still injected, at the same share of positions
        assert 0 < int((x != s).sum()) <= 200
    assert bool((signed[2][signed[2] != plain[2]] < 0).any())  # a tensor of both signs keeps both


def test_wide_outliers_leave_half_precision_range_in_float32_tensors_only():
    import torch

    module = types.SimpleNamespace(get_inputs=lambda: [torch.randn(100_000), torch.randn(100_000).half()])
    plain, either = make_inputs(module, 5, "cpu"), make_inputs(module, 5, "cpu", OUTLIERS)
    wide = make_inputs(module, 5, "cpu", WIDE_OUTLIERS)
    assert float(wide[0].max()) > 65504 >= float(either[0].abs().max())
    assert float(wide[0].min()) == float(either[0].min()) < 0  # the negative ones ordinary: no cancelling pairs
    assert 0 < int((wide[0] != plain[0]).sum()) <= 101  # at most 100 drawn, and the wide pair's neighbour
    assert torch.equal(wide[1], either[1])  # a float16 tensor gets the ordinary outliers


def problem(forward: str, inputs: str) -> str:
    return textwrap.dedent(f'''
        import torch
        import torch.nn as nn

        class Model(nn.Module):
            def forward(self, a, b=None):
                return {forward}

        rows = 64  # 32 outliers of random sign: a negative one in every trial (at 4, none in 1 of 16)
        cols = 512

        def get_inputs():
            return {inputs}

        def get_init_inputs():
            return []
    ''')


def candidate(body: str) -> str:
    """A ModelNew that computes ``body`` (over ``a``, ``b``, giving ``y``) with a Triton log kernel ``tlog``."""
    return textwrap.dedent('''
        import torch
        import torch.nn as nn
        import triton
        import triton.language as tl

        @triton.jit
        def log_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            mask = offs < n
            tl.store(y_ptr + offs, tl.log(tl.load(x_ptr + offs, mask=mask, other=1.0)), mask=mask)

        def tlog(x):
            x = x.contiguous()
            y = torch.empty_like(x)
            log_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
            return y

        class ModelNew(nn.Module):
            def forward(self, a, b=None):
    ''') + textwrap.indent(textwrap.dedent(body), " " * 8) + "\n        return y\n"


KL_DIV = problem("torch.nn.functional.kl_div(torch.log(a), b, reduction='batchmean')",
                 "[torch.rand(rows, cols).softmax(-1), torch.rand(rows, cols).softmax(-1)]")
#: KL divergence with the predictions clamped away from 0 (as real kernels do): equal wherever the log is defined
KL_DIV_CLAMPED = candidate("""
p = a.clamp_min(1e-10)
y = (b * (tlog(b.clamp_min(1e-10)) - tlog(p))).sum() / a.shape[0]
""")
CUMPROD = problem("torch.cumprod(a, dim=1)", "[torch.rand(rows, cols)]")
#: binary cross-entropy raises on probabilities outside [0, 1], and outliers of either sign or of the input's own
#: sign are outside it: the reference cannot be computed on any outlier input
BCE = problem("torch.nn.functional.binary_cross_entropy(a, b)", "[torch.rand(rows, cols), torch.rand(rows, cols)]")
BCE_KERNEL = candidate("y = -(b * tlog(a).clamp_min(-100) + (1 - b) * tlog(1 - a).clamp_min(-100)).mean()")
#: cumprod as exp(cumsum(log x)): right for positive values only
CUMPROD_THROUGH_LOGS = candidate("y = torch.exp(torch.cumsum(tlog(a), dim=1))")


@pytest.mark.parametrize("source, text, status, outliers", [
    (KL_DIV, KL_DIV_CLAMPED, "ok", "signed"),                       # reference NaN on negative probabilities
    (CUMPROD, CUMPROD_THROUGH_LOGS, "incorrect", "either_sign"),    # reference finite on negative values
    (BCE, BCE_KERNEL, "ok", "none"),                                # reference raises on every outlier input
])
def test_outliers_leave_the_domain_only_of_functions_defined_there(judge, source, text, status, outliers, monkeypatch):
    from kernelgym.judge import session

    # the order of the trials is drawn (session.trial_order); here it is fixed so that the outlier trial, whose
    # kind of outliers this test is about, runs before the wide one (which the cumulative product fails too)
    monkeypatch.setattr(session, "trial_order", session.fixed_trial_order)
    task = task_from_source(source, "L1/1_outliers", 1, task_set="kernelbench")
    result = judge.evaluate(task, text, profile=SHORT, torch_policy="off")
    assert result.status == status, result.message
    stages = [t for t in result.trials if t["stage"] == "outlier"]
    assert stages and stages[0]["outliers"] == outliers


def float32_task(parameters: str, forward: str, inputs: str) -> str:
    """A float32 task (tolerance 1e-2) whose Model has the ``parameters`` (``__init__`` lines), returns
    ``forward`` (over ``a``) and takes ``inputs`` (the expression ``get_inputs`` returns)."""
    return textwrap.dedent('''
        import torch
        import torch.nn as nn

        KERNELGYM = {"dtype": "float32", "atol": 1e-2, "rtol": 1e-2}

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
    ''') + textwrap.indent(textwrap.dedent(parameters).strip(), " " * 8) + textwrap.dedent(f'''

            def forward(self, a):
                return {forward}

        def get_inputs():
            return {inputs}

        def get_init_inputs():
            return []
    ''')


def triton_model(kernels: str, parameters: str, forward: str) -> str:
    """A ModelNew with the Triton ``kernels`` (module level), the ``parameters`` (``__init__`` lines) and the
    ``forward`` body (over ``a``)."""
    return textwrap.dedent('''
        import torch
        import torch.nn as nn
        import triton
        import triton.language as tl
    ''') + textwrap.dedent(kernels) + textwrap.dedent('''

        class ModelNew(nn.Module):
            def __init__(self):
                super().__init__()
    ''') + textwrap.indent(textwrap.dedent(parameters).strip(), " " * 8) + """

    def forward(self, a):
""" + textwrap.indent(textwrap.dedent(forward).strip(), " " * 8) + "\n"


#: two products of one input that nearly cancel: the wide outliers make each term thousands, the difference tens
CANCELLING_PARAMETERS = """
self.w = nn.Parameter(torch.randn(64, 64) / 8)
self.v = nn.Parameter(self.w.detach() + torch.randn(64, 64) * 1e-4)
"""
CANCELLING = float32_task(CANCELLING_PARAMETERS, "a @ self.w - a @ self.v", "[torch.randn(64, 64)]")


def products_kernel(operand: str) -> str:
    """A ModelNew computing ``a @ w - a @ v`` in one Triton kernel, each operand passed through ``operand``
    (an expression over ``x``) before its product."""
    return triton_model(f'''
        @triton.jit
        def rounded(x):
            return {operand}

        @triton.jit
        def products_kernel(a_ptr, w_ptr, v_ptr, y_ptr, N: tl.constexpr):
            rows = tl.arange(0, N)[:, None] * N + tl.arange(0, N)[None, :]
            a = rounded(tl.load(a_ptr + rows))
            w = rounded(tl.load(w_ptr + rows))
            v = rounded(tl.load(v_ptr + rows))
            tl.store(y_ptr + rows, tl.dot(a, w) - tl.dot(a, v))
    ''', CANCELLING_PARAMETERS, """
        y = torch.empty_like(a)
        products_kernel[(1,)](a.contiguous(), self.w.contiguous(), self.v.contiguous(), y, N=64)
        return y
    """)


#: TF32 as the tensor cores keep it: 10 of float32's 23 fraction bits
TF32_OPERANDS = products_kernel("(x.to(tl.int32, bitcast=True) & -8192).to(tl.float32, bitcast=True)")


def test_a_tf32_kernel_passes_the_wide_trial_where_its_terms_cancel_by_the_allowance_alone(judge, monkeypatch):
    """Wide outliers make each product thousands and the difference tens: a kernel rounding its operands to TF32
    (honest, and within the task's tolerance on the ordinary trials) is off by units there, far beyond an
    ordinary tolerance. The wide trial allows what moving the data by the task's relative tolerance moves the
    exact result (``Session.wide_allowances``): with that allowance the kernel is ``ok``, without it incorrect in
    the wide trial (measured first on the H200: honest TF32 matmul solutions of five tasks failed there)."""
    from kernelgym.judge import session

    task = task_from_source(CANCELLING, "L1/1_cancelling", 1)
    result = judge.evaluate(task, TF32_OPERANDS, profile=SHORT, torch_policy="off")
    assert result.status == "ok", result.message
    assert "wide" in {t["stage"] for t in result.trials}
    monkeypatch.setattr(session, "WIDE_SPREAD_FACTOR", 0.0)
    result = judge.evaluate(task, TF32_OPERANDS, profile=SHORT, torch_policy="off")
    assert result.status == "incorrect" and "wide trial" in result.message, result.message


def test_a_few_elements_beyond_the_wide_allowance_are_judged_again_with_more_moves(judge, monkeypatch):
    """The allowance is the largest change of a sample of moves; a failure by a few elements could be that sample's
    miss, so those few are judged again with :data:`WIDE_PERTURBATION_PAIRS_AGAIN` pairs (a miss of two pairs failed
    one element of L2/20's 134M on the H100). Here the first sample is empty (no allowance at all): the TF32 kernel
    fails it by about a hundred elements, within a cap raised to the output's size, and passes the second; with the
    cap at 0 elements, or the first sample taking longer than allowed, there is no second sample and it stays
    incorrect; a kernel wrong in every element never gets one under the real cap."""
    from kernelgym.judge import session

    pairs_drawn: list[int] = []
    allowances = session.Session.wide_allowances

    def recorded(self, seed, exacts, pairs=None, *more):
        pairs_drawn.append(pairs)
        return allowances(self, seed, exacts, pairs, *more)

    monkeypatch.setattr(session.Session, "wide_allowances", recorded)
    monkeypatch.setattr(session, "WIDE_PERTURBATION_PAIRS", 0)
    monkeypatch.setattr(session, "WIDE_AGAIN_MAX_ELEMENTS", 64 * 64)
    task = task_from_source(CANCELLING, "L1/1_cancelling", 1)
    result = judge.evaluate(task, TF32_OPERANDS, profile=SHORT, torch_policy="off")
    assert result.status == "ok", result.message
    assert session.WIDE_PERTURBATION_PAIRS_AGAIN in pairs_drawn and pairs_drawn[0] == 0

    for name, value in (("WIDE_AGAIN_MAX_ELEMENTS", 0), ("WIDE_AGAIN_MAX_FIRST_S", -1.0)):  # too many; too slow
        monkeypatch.setattr(session, "WIDE_AGAIN_MAX_ELEMENTS", 64 * 64)
        monkeypatch.setattr(session, name, value)
        pairs_drawn.clear()
        result = judge.evaluate(task, TF32_OPERANDS, profile=SHORT, torch_policy="off")
        assert result.status == "incorrect" and "wide trial" in result.message, (name, result.message)
        assert session.WIDE_PERTURBATION_PAIRS_AGAIN not in pairs_drawn
    monkeypatch.setattr(session, "WIDE_AGAIN_MAX_FIRST_S", 10.0)

    monkeypatch.setattr(session, "WIDE_PERTURBATION_PAIRS", 2)
    monkeypatch.setattr(session, "WIDE_AGAIN_MAX_ELEMENTS", 16)
    pairs_drawn.clear()
    wrong = products_kernel("x").replace("        return y\n", "        return y + float((a > 65504).any())\n")
    assert "y + float(" in wrong  # off by 1 everywhere on wide inputs only
    result = judge.evaluate(task, wrong, profile=SHORT, torch_policy="off")
    assert result.status == "incorrect" and "wide trial" in result.message, result.message
    assert pairs_drawn == [2]


def test_the_wide_allowance_is_per_row_so_a_chaotic_row_excuses_no_other(judge):
    """The allowance is the reference's own sensitivity row by row: rows whose outliers' terms cancel get a wide one,
    the others keep a narrow one. A kernel that is off by 1 in a row without outliers, only on wide inputs, fails
    the wide trial (with one allowance per output, the chaotic rows' would have excused it)."""
    task = task_from_source(CANCELLING, "L1/1_cancelling", 1)
    text = products_kernel("x").replace("        return y\n", textwrap.indent(textwrap.dedent('''
        if bool((a > 65504).any()):
            calm = (a.abs() < 1000).all(dim=1)
            row = int(torch.nonzero(calm)[0, 0])
            y[row] = y[row] + 1.0
        return y
        '''), " " * 8))
    assert "y[row] = y[row] + 1.0" in text
    result = judge.evaluate(task, text, profile=SHORT, torch_policy="off")
    assert result.status == "incorrect" and "wide trial" in result.message, result.message
    assert "in a row" in result.message


#: a gated linear unit: the gate's sigmoid is a threshold where the wide outliers' terms cancel
GATED = float32_task("self.linear = nn.Linear(2048, 512)",
                     "(lambda y: y[:, :256] * torch.sigmoid(y[:, 256:]))(self.linear(a))", "[torch.randn(256, 2048)]")


def test_the_wide_allowance_covers_a_gate_flipped_by_tf32_rounding(tmp_path):
    """Where a wide pair's terms cancel in a gate's input, the gate's sign is the rounding's: an honest kernel with
    TF32 operands flipped single elements of L2/15's GLU by thousands (H100, db7c380). The allowance moves the data
    both ways (``ReferenceSide.perturbed_outputs``), so a move towards the gate's threshold shows what its rounding
    can do: every seed passes here, where two independent moves failed 7 of 30 seeds of this model at twice the
    rows (a one-sided move misses when it goes away from the threshold). Some seeds need the allowance. The same
    kernel with its operands saturated at float16's range is caught on every seed, though the outliers' rows are
    chaotic (``RowAllowance.free``: a few elements of such a row may be off, not most of it)."""
    import torch

    from kernelgym.judge.correctness import LargestChange, compare_outputs
    from kernelgym.judge.reference import ReferenceSide
    from kernelgym.judge.session import WIDE_PERTURBATION_PAIRS, WIDE_SPREAD_FACTOR

    def tf32(t):
        return (t.float().view(torch.int32) & -8192).view(torch.float32).double()

    task = task_from_source(GATED, "L2/1_gated", 2)
    reference = ReferenceSide("cpu", tmp_path, "cpu", torch.__version__)
    module, model = reference.model(task, 0)
    needed = caught = 0
    for seed in range(20):
        x = make_inputs(module, seed, "cpu", WIDE_OUTLIERS)[0]
        y = (tf32(x) @ tf32(model.linear.weight.detach()).T).float() + model.linear.bias.detach()
        out = (y[:, :256] * torch.sigmoid(y[:, 256:]),)
        refs = reference.outputs(task, 0, seed, WIDE_OUTLIERS)
        exacts = reference.exact_outputs(task, 0, seed, WIDE_OUTLIERS)
        needed += not compare_outputs(refs, out, 0.1, task.rtol, "allclose", exacts).ok
        largest, moves = LargestChange(exacts), []
        assert reference.perturbed_outputs(
            task, 0, seed, WIDE_OUTLIERS, task.rtol, WIDE_PERTURBATION_PAIRS,
            lambda index, moved: (moves.append(float(moved[0].sum())), largest.add(index, moved)))
        assert len(set(moves)) == len(moves) == 2 * WIDE_PERTURBATION_PAIRS
        allowances = largest.allowances(WIDE_SPREAD_FACTOR, task.rtol)
        check = compare_outputs(refs, out, 0.1, task.rtol, "allclose", exacts, allowances=allowances)
        assert check.ok, (seed, check.reason)
        # the same kernel with its operands saturated at float16's range first: wrong throughout the outliers' rows
        y = (tf32(x.clamp(-65504, 65504)) @ tf32(model.linear.weight.detach()).T).float() + model.linear.bias.detach()
        saturated = (y[:, :256] * torch.sigmoid(y[:, 256:]),)
        caught += not compare_outputs(refs, saturated, 0.1, task.rtol, "allclose", exacts, allowances=allowances).ok
    assert needed >= 3
    assert caught == 20


def test_a_row_that_answers_a_pair_of_opposite_moves_unevenly_is_chaotic_and_may_have_a_few_elements_off():
    """``LargestChange``: three rows of 512. Row 0 moves evenly (a linear response: +3 and -3 around 100, as terms
    that cancel do), so its allowance is twice its largest change; row 1 has a threshold (one move flips an element
    from 50 to 0, the other leaves it), so it is chaotic: an honest kernel's rounding can flip gates no move
    reproduces, and a few of its elements (``RowAllowance.free``: 2 here) may be anything finite; row 2 is calm.
    A kernel off by 10 in row 0 or row 2 fails, as does one off in more than two elements of row 1 (a kernel wrong
    throughout such a row, operands saturated at float16's range, say) or with a NaN there."""
    import torch

    from kernelgym.judge.correctness import LargestChange, compare_outputs

    exact = torch.full((3, 512), 100.0, dtype=torch.float64)
    exact[1, 5] = 50.0
    up, down = exact.clone(), exact.clone()
    up[0] += 3.0
    down[0] -= 3.0
    up[1, 5] = 0.0  # the threshold: one way flips it, the other does not
    up[2] += 0.01
    down[2] -= 0.01
    largest = LargestChange((exact,))
    largest.add(0, (up.clone(),))
    largest.add(1, (down.clone(),))
    allowance = largest.allowances(2.0, 0.01)[0]
    assert allowance.per_row.tolist() == pytest.approx([6.0, 100.0, 0.02])
    assert allowance.chaotic.tolist() == [False, True, False] and allowance.free() == 2
    ref = (exact.float(),)

    def check(row, value, columns=(3,)):
        out = exact.float().clone()
        out[row, list(columns)] = value
        return compare_outputs(ref, (out,), 0.1, 0.01, "allclose", (exact,), allowances=(allowance,))

    assert check(0, 105.0).ok and not check(0, 110.0).ok
    assert not check(2, 110.0).ok
    assert check(1, 1e6).ok and check(1, -1e6, (3, 9)).ok
    wrong = check(1, 1e6, (3, 9, 11))
    assert not wrong.ok and "3 of 512 elements of row 1" in wrong.reason, wrong.reason
    assert not check(1, float("nan")).ok
    assert not check(1, 65504.0 * 2, range(512)).ok


def test_the_float64_reference_and_its_moves_start_over_on_the_host_when_the_gpu_runs_out_of_memory(tmp_path):
    """On the GPU the float64 reference can run out of memory beside other evaluations (L1/15's float64 input alone
    is 9.8 GB: a wrong kernel's evaluation ended ``crashed`` with a judge error on the H100 at 7790d75). The
    reference side then runs it on the host from the same inputs, and the wide allowance's moves start over there
    (index 0 again), so the allowance is the one an uninterrupted run gives. Simulated: a side that is not the
    CPU's, whose first attempt runs out of memory after two moves."""
    import torch

    from kernelgym.judge.correctness import LargestChange
    from kernelgym.judge.reference import ReferenceSide

    task = task_from_source(GATED, "L2/1_gated", 2)
    reference = ReferenceSide("cpu", tmp_path, "cpu", torch.__version__)
    exacts = reference.exact_outputs(task, 0, 5, WIDE_OUTLIERS)
    clean = LargestChange(exacts)
    assert reference.perturbed_outputs(task, 0, 5, WIDE_OUTLIERS, 0.01, 2, clean.add)

    reference.on_cpu = False  # as on a GPU: out of memory is worth another try on the host
    seen: list[int] = []
    largest = LargestChange(exacts)

    def short_of_memory_once(index, moved):
        seen.append(index)
        if len(seen) == 3:
            raise torch.OutOfMemoryError("CUDA out of memory (simulated)")
        largest.add(index, moved)

    assert reference.perturbed_outputs(task, 0, 5, WIDE_OUTLIERS, 0.01, 2, short_of_memory_once)
    assert seen == [0, 1, 2, 0, 1, 2, 3]
    assert torch.equal(largest.allowances(2.0, 0.01)[0].per_row, clean.allowances(2.0, 0.01)[0].per_row)

    calls = []
    original = ReferenceSide._exact_on

    def first_attempt_short(self, device, *args):
        calls.append(device)
        if len(calls) == 1:
            raise torch.OutOfMemoryError("CUDA out of memory (simulated)")
        return original(self, device, *args)

    reference._exact_on = types.MethodType(first_attempt_short, reference)
    again = reference.exact_outputs(task, 0, 5, WIDE_OUTLIERS)
    assert calls == ["cpu", "cpu"] and torch.equal(again[0], exacts[0])

    # a side whose device is not the host's (as "cuda:0" is): the kept float64 copy moves to the host, and is gone
    reference.device = "cpu:0"
    calls.clear()
    assert "exact" in reference._references[task.key]
    again = reference.exact_outputs(task, 0, 5, WIDE_OUTLIERS)
    assert calls == ["cpu:0", "cpu"] and torch.equal(again[0], exacts[0])
    assert "exact" not in reference._references[task.key]


def test_the_trials_come_in_an_order_drawn_for_each_evaluation():
    """Every kind of trial lands at every place over many evaluations, and the indices (the seeds) stay the fixed
    order's whatever the places."""
    from kernelgym.judge.session import trial_order

    places = {kind: set() for kind in ("standard", "outlier", "wide")}
    for _ in range(300):
        order = trial_order(5, 1, True)
        assert sorted(order) == [(0, "standard"), (1, "standard"), (2, "standard"), (3, "standard"),
                                 (4, "standard"), (5, "outlier"), (6, "wide")]
        for place, (_, kind) in enumerate(order):
            places[kind].add(place)
    assert places["outlier"] == places["wide"] == places["standard"] == set(range(7))


#: right only in the calls where the fixed order put the outlier and wide trials (the load's warm-up forward is
#: call 1, the trials calls 2-8), elsewhere wrong on inputs between 8 and float16's range: the ordinary outliers,
#: not the wide ones (which the recheck after timing carries, and which it recognises)
COUNTING = kernel_forward(indent('''
self.calls += 1
if self.calls in (7, 8):
    return launch(x)
return launch(torch.where(x > 65504, x, x.clamp(max=8.0)))'''), init="self.calls = 0")


def test_a_forward_right_only_where_the_fixed_order_put_the_outliers_is_caught(judge, relu_task, monkeypatch,
                                                                               no_probes):
    """In the fixed order (five standard trials, then the outlier and the wide one) the counting forward is ``ok``;
    in a drawn order it is incorrect (the generator is seeded here so the test does not depend on luck: the drawn
    order puts an outlier or wide trial elsewhere)."""
    import random

    from kernelgym.judge import session

    drawn = session.trial_order  # (no probes: the order alone; probes in the timed calls would catch it too)
    monkeypatch.setattr(session, "trial_order", session.fixed_trial_order)
    assert judge.evaluate(relu_task, COUNTING, profile=SHORT, torch_policy="off").status == "ok"
    monkeypatch.setattr(session, "_RANDOM", random.Random(3))
    assert [kind for _, kind in drawn(5, 1, True)].index("outlier") < 5  # before the counted calls
    monkeypatch.setattr(session, "_RANDOM", random.Random(3))
    monkeypatch.setattr(session, "trial_order", drawn)
    result = judge.evaluate(relu_task, COUNTING, profile=SHORT, torch_policy="off")
    assert result.status == "incorrect", result.message


#: exact in the first nine calls (the load's warm-up forward, the seven trials, the profiled forward), then wrong on
#: the ordinary outliers (between 8 and float16's range) while right on wide ones (which the recheck after timing
#: carries): the trials all pass, and without probes every timed call compared had standard inputs
EXACT_UNTIL_TIMED = kernel_forward(indent('''
self.calls += 1
if self.calls <= 9:
    return launch(x)
return launch(torch.where(x > 65504, x, x.clamp(max=8.0)))'''), init="self.calls = 0")


def test_a_forward_that_drops_what_outliers_need_once_timed_is_caught_by_a_probe(judge, relu_task, monkeypatch):
    """Timed blocks carry *probes* (``Session.probe_for_block``): a call at a drawn place whose inputs have
    outliers, compared with its block; every kind of outliers the trials used gets one before the timing ends.
    Without probes the same forward is ``ok``."""
    from kernelgym.judge import session

    result = judge.evaluate(relu_task, EXACT_UNTIL_TIMED, profile=SHORT, torch_policy="off")
    assert result.status == "incorrect" and "(outlier inputs)" in result.message, result.message
    monkeypatch.setattr(session, "PROBE_SHARE", 0.0)  # no probes at all
    result = judge.evaluate(relu_task, EXACT_UNTIL_TIMED, profile=SHORT, torch_policy="off")
    assert result.status == "ok", result.message
    assert result.runtime_spread["probes_compared"] == 0


#: a product normalised row by row: the scale of a row does not show in its output
NORMALISED_PARAMETERS = "self.w = nn.Parameter(torch.randn(64, 64) / 8)"
NORMALISED = float32_task(NORMALISED_PARAMETERS, "torch.nn.functional.layer_norm(a @ self.w, (64,))",
                          "[torch.randn(32, 64)]")


def normalised_kernel(operand: str) -> str:
    """A ModelNew computing the product in Triton, each operand through ``operand`` (over ``x``), then the norm."""
    return triton_model(f'''
        @triton.jit
        def product_kernel(a_ptr, w_ptr, y_ptr, M: tl.constexpr, N: tl.constexpr):
            rows = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
            square = tl.arange(0, N)[:, None] * N + tl.arange(0, N)[None, :]
            x = tl.load(a_ptr + rows)
            a = {operand}
            x = tl.load(w_ptr + square)
            w = {operand}
            tl.store(y_ptr + rows, tl.dot(a, w))
    ''', NORMALISED_PARAMETERS, """
        y = torch.empty_like(a)
        product_kernel[(1,)](a.contiguous(), self.w.contiguous(), y, M=32, N=64)
        return torch.nn.functional.layer_norm(y, (64,))
    """)


def test_operands_saturated_at_half_precisions_range_fail_the_wide_trial_before_a_norm(judge):
    """With one wide outlier in a row, a LayerNorm after the product hides that it was clamped at 65504 (the row's
    direction is the outlier's term either way); the wide trial puts two side by side, 3 to 10 times apart, and
    clamping both loses their ratio. The same kernel without the clamp is ``ok``."""
    task = task_from_source(NORMALISED, "L2/1_normalised", 2)
    assert judge.evaluate(task, normalised_kernel("x"), profile=SHORT, torch_policy="off").status == "ok"
    result = judge.evaluate(task, normalised_kernel("tl.minimum(x, 65504.0)"), profile=SHORT, torch_policy="off")
    assert result.status == "incorrect" and "wide" in result.message, result.message
