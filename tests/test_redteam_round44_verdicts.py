"""Red team, round 44 (verdicts): a scalar loss read from part of its input, round 41's open end.

(1) **One input read, the other integrated out** (new). L1/81, L1/82 and L1/90 drew one input light-tailed (unit
normals) and put round 41's per-element log-normal scale on the other only. A kernel that reads the heavy input
alone and replaces the light one by its conditional expectation (a table of ``E[loss | x]`` made offline from the
task's public ``get_inputs``; for L1/90 even closed-form, ``E|p - t| = t (2 Phi(t) - 1) + 2 phi(t)`` for a unit
normal ``p``) reads half the bytes and errs only by the light input's own spread, about ``1 / sqrt(N)``: 0.08, 0.21
and 0.13 of the tolerance at the default shapes (one seed each, the judge's comparison), ``ok`` in every standard
trial. It sees the judge's outliers in the input it reads (0.1% of its elements at the cap, 1e4, or wide ones), so
it can be exact in every outlier and wide trial and probe, as round 41's candidate was.

(2) **Partial reads of both inputs** (round 41's candidate, narrowed then): its error is a zero-mean draw. With
round 41's inputs a read of a random half of the 256-element blocks passed a single standard trial 11-17% of the
time, a quarter 7-11%, an eighth 5-9%, 15/16 of them 47-66% (500 read patterns per share, one seed per task, default
shapes); fixed patterns passed too (every other element of L1/82, L1/88 and L1/90, the first half of each row of
L1/85, the first quarter of L1/88's). A candidate that counts its calls can read fully in the trials and partially
in the timed calls, where as few as two are compared: 1-3% of evaluations for a half read, 22-44% for 15/16.

Mended in the inputs of all five tasks (``_spiky``): every floating input has the log-normal scale (so no input stands
in for another), and about ``SPIKES`` = 128 of its elements (a Poisson count, at random places) are *spikes* of
``n / SPIKES`` (L1/81: its square root) times a log-uniform factor in [1/4, 4], so that each moves the mean loss by
about 1/128 at any shape: a read of a share f that misses or doubles some of them is off by about
``sqrt((1 - f) / f * 2.9 / SPIKES)`` of a unit loss (0.15 for a half read, std), hundreds of tolerances, whatever
N. After the mend (same patterns): a random half passes 0.2-0.6% of single trials, a quarter 0-0.6%, an eighth
0-0.6%, 15/16 1.4-2.2%; every fixed pattern fails by 7 to 1,200 tolerances, a one-input read by 50 or more; the
honest float32 kernel (block sums added one after another in float32) stays within 0.01-0.12 of the tolerance with
1024-element blocks and 0.001-0.32 with 128-element blocks (0.01-0.09 and 0.05-0.24 before).

(3) **Open: the light input skimmed where it matters little** (L1/85, L1/88; strict xfail). The candidate reads
the heavy input whole and the labels (targets) only in sectors where a prediction is large, taking their expectation
elsewhere: predicted at 0.28 and 0.35 of the tolerance while skipping 38-47% of all bytes. A label moves the mean of
N elements by ``|p| / N``, so labels of ordinary predictions sum to about ``1 / sqrt(N)`` of the mean, below rtol
1e-4 for N above 1e8 (268M here), and the prediction beside a label tells how much it matters: no draw of the inputs
mends this while hinge labels stay +-1 and BCE targets in [0, 1]; a smaller default shape or a tolerance the
honest kernels cannot meet would.

Why not in the judge: a sharper comparison for reductions is not sound (the least exact honest float32 kernel errs by
up to 0.24 of the tolerance with 128-element blocks on round 41's inputs, and 71 times it with 32-element blocks,
which the judge already refuses), and a "sensitivity probe" (a trial that perturbs a random set of positions) cannot
beat the inputs' own spread: a mean over a read set is unbiased for any perturbation at random positions, so only the
perturbation's variance counts, and one with more variance than the inputs' own is seen, by the values or their
count, in what a partial read reads, where the candidate then computes exactly (as it does on outliers). Heavier
log-normal scales instead of spikes (``SPREAD`` 3) cut a half read's passes to 1.6% but pushed the honest kernel with
128-element blocks to 1.6-3.9 times the tolerance (its running float32 sum outgrows the blocks' sums): spikes move
the mean by a bounded share, so the running sum stays as it was.

Simulated in plain PyTorch with the tasks' own inputs and the judge's comparison, as in round 41
(``tests/test_redteam_round41_verdicts.py``, whose helpers this file uses). The fast tests predict the error at the
default number of elements from 4M elements; the slow ones draw the default shapes (268M elements, minutes a seed).
"""

from __future__ import annotations

import math

import pytest
from test_redteam_round41_verdicts import LOSSES, SAMPLE_SHAPES, SCREEN_MAGNITUDE, SCREEN_SHARE, _elementwise, _task

from kernelgym.judge.correctness import compare_outputs
from kernelgym.judge.inputs import make_inputs

#: quantile bins of the read input in the table of the loss's conditional expectation (:func:`_expectation_table`)
BINS = 4096
#: seeds of the draws the table is made from: the candidate's author draws the task's public ``get_inputs`` offline
TABLE_SEEDS = (901, 902)
#: (task, the input read alone) pairs: each of the two inputs of each loss
ONE_INPUT = [(prefix, j) for prefix in sorted(LOSSES) for j in (0, 1)]


def _sample_inputs(prefix: str, seed: int):
    """The task's inputs at :data:`SAMPLE_SHAPES` (4M elements, the default shape's per-element structure)."""
    module = _task(prefix).load_module(small=True)
    module.__dict__.update(SAMPLE_SHAPES[prefix])
    return make_inputs(module, seed, "cpu")


def _expectation_table(prefix: str, j: int):
    """``E[loss | input j]`` as a quadratic in ``x`` within each of :data:`BINS` quantile bins of ``x``, fitted by
    least squares on draws of :data:`TABLE_SEEDS` at :data:`SAMPLE_SHAPES`: what a candidate that reads input ``j``
    alone looks up (:func:`_table_from`)."""
    return _table_from(prefix, j, [(x.reshape(-1) for x in _sample_inputs(prefix, seed)) for seed in TABLE_SEEDS])


def _default_shape_tables(prefix: str, module) -> list:
    """Both inputs' tables (:func:`_expectation_table`) from every 16th element of a draw at the default shape
    (seed ``TABLE_SEEDS[0]``): a table made at the shape it is used at."""
    draw = [x.reshape(-1)[::16].clone() for x in make_inputs(module, TABLE_SEEDS[0], "cpu")]
    return [_table_from(prefix, j, [iter(draw)]) for j in (0, 1)]


def _table_from(prefix: str, j: int, draws) -> tuple:
    """The table of :func:`_expectation_table` from ``draws`` (each an iterable of the two flat inputs). Returns
    ``(edges, centres, coefficients)`` for :func:`_expected_loss`."""
    import torch

    xs, losses = [], []
    for draw in draws:
        p, t = (x.double() for x in draw)
        xs.append((p, t)[j])
        losses.append(_elementwise(prefix, p, t))
    x, loss = torch.cat(xs), torch.cat(losses)
    order = torch.argsort(x)
    x, loss = x[order], loss[order]
    per = x.numel() // BINS
    edges = x[per::per][:BINS - 1].contiguous()
    bins = torch.bucketize(x, edges)
    centres = _per_bin(bins, x) / _per_bin(bins, torch.ones_like(x))
    u = x - centres[bins]
    moments = [_per_bin(bins, u ** k) for k in range(5)]
    normal = torch.stack([torch.stack([moments[i + k] for k in range(3)], -1) for i in range(3)], -2)
    normal = normal + 1e-12 * moments[2][:, None, None].clamp_min(1e-30) * torch.eye(3, dtype=torch.float64)
    rhs = torch.stack([_per_bin(bins, loss * u ** k) for k in range(3)], -1)
    return edges, centres, torch.linalg.solve(normal, rhs)


def _per_bin(bins, values):
    import torch

    return torch.zeros(BINS, dtype=torch.float64).index_add_(0, bins, values)


def _expected_loss(table, x):
    """Per element of ``x`` (float64), the table's ``E[loss | x]``."""
    import torch

    edges, centres, coef = table
    bins = torch.bucketize(x, edges)
    u = x - centres[bins]
    c = coef[bins]
    return c[:, 0] + c[:, 1] * u + c[:, 2] * u * u


@pytest.mark.parametrize("prefix,j", ONE_INPUT)
def test_a_loss_read_from_one_input_alone_is_predicted_wrong_at_the_default_shape(prefix, j):
    """From 4M elements of the task's inputs, the error of the candidate that reads input ``j`` alone (the other's
    conditional expectation from a table), predicted at the default number of elements (``std(loss - E[loss | x]) /
    sqrt(N)``), must be well above the tolerance. Before the mend it was predicted at 0.06-0.2 of it for the targets
    of L1/81, L1/82 and L1/90 (0.21, 0.13 and 0.08 measured at the default shape)."""
    task = _task(prefix)
    table = _expectation_table(prefix, j)
    ratios = []
    for seed in (5, 6):
        p, t = (x.double().reshape(-1) for x in _sample_inputs(prefix, seed))
        loss = _elementwise(prefix, p, t)
        residual = loss - _expected_loss(table, (p, t)[j])
        predicted = float(residual.std()) / math.sqrt(LOSSES[prefix][0])
        ratios.append(predicted / (task.atol + task.rtol * float(loss.mean())))
    assert min(ratios) > 3, f"{prefix}: reading input {j} alone is predicted off by only {min(ratios):.2g} times " \
                            f"the tolerance"


# at the default shapes (268M elements): every partial read the report names, and the honest float32 kernel

#: elements of each input handled at once (a multiple of every task's row, so a chunk holds whole rows)
CHUNK = 1 << 24
#: the read shares of the partial reads: the first 1/k of each row (contiguous) and every k-th element (strided)
SHARES = (2, 4, 8)
#: block sizes of the honest float32 kernel (block sums in float32, then added one after another in float32)
HONEST_BLOCKS = (128, 1024)


def _streamed_sums(prefix: str, inputs, tables) -> dict:
    """One pass over the inputs, :data:`CHUNK` elements at a time: the float64 sum of the loss (``exact``), of the
    first ``1/k`` of each row (``("contiguous", k)``) and of every ``k``-th element (``("strided", k)``); the sum of
    each table's conditional expectation (``("one input", j)``); the float32 block sums of the honest kernel
    (``("blocks", size)``, tensors)."""
    p, t = (x.reshape(-1) for x in inputs)
    row = inputs[0].shape[-1]
    sums: dict = {}
    for start in range(0, p.numel(), CHUNK):
        a, b = p[start:start + CHUNK], t[start:start + CHUNK]
        loss = _elementwise(prefix, a.double(), b.double())
        _add(sums, "exact", float(loss.sum()))
        for k in SHARES:
            _add(sums, ("contiguous", k), float(loss.view(-1, row)[:, :row // k].sum()))
            _add(sums, ("strided", k), float(loss[::k].sum()))
        del loss
        for j, table in enumerate(tables):
            _add(sums, ("one input", j), float(_expected_loss(table, (a, b)[j].double()).sum()))
        loss32 = _elementwise(prefix, a, b)
        for size in HONEST_BLOCKS:
            sums.setdefault(("blocks", size), []).append(loss32.view(-1, size).sum(1))
    return sums


def _add(sums: dict, key, value: float) -> None:
    sums[key] = sums.get(key, 0.0) + value


def _honest_mean(block_sums: list, n: int) -> float:
    """The honest kernel's mean of ``n`` elements: its float32 block sums added one after another in float32
    (numpy's accumulate: torch's CPU cumsum accumulates float32 in float64), divided by ``n`` in float32."""
    import numpy as np
    import torch

    total = np.add.accumulate(torch.cat(block_sums).numpy(), dtype=np.float32)[-1]
    return float(total / np.float32(n))


def _estimates(sums: dict, n: int) -> dict:
    """Each candidate's mean from :func:`_streamed_sums`: the partial reads scaled up, the one-input reads as they
    are."""
    out = {}
    for key, value in sums.items():
        if key[0] in ("contiguous", "strided"):
            out[key] = value * key[1] / n
        elif key[0] == "one input":
            out[key] = value / n
    return out


def _judged(task, ref, exact, value: float, scale: float = 1.0) -> bool:
    """The judge's verdict on a scalar ``value`` (float32) against the eager ``ref`` and the float64 ``exact``, at
    ``scale`` times the task's tolerance."""
    import torch

    out = torch.tensor(value, dtype=torch.float32)
    return compare_outputs((ref,), (out,), task.atol * scale, task.rtol * scale, exacts=(exact,)).ok


@pytest.mark.slow
@pytest.mark.parametrize("prefix", sorted(LOSSES))
def test_partial_reads_fail_and_the_honest_kernel_passes_at_the_default_shape(prefix):
    """At the default shape, two standard seeds: each partial read (the first 1/2, 1/4, 1/8 of each row; every
    2nd, 4th, 8th element; one input alone with the other's conditional expectation) fails at least one of them
    (a single trial can pass by chance, 0.2-0.6% of the time for a read of half, see the module docstring; an
    evaluation compares several); the honest float32 kernel with 1024-element blocks stays within a quarter of the
    tolerance and with 128-element blocks within half of it."""
    import torch

    from kernelgym.judge.inputs import build_model

    task = _task(prefix)
    module = task.load_module(small=False)
    model = build_model(module, module.Model, 1234, "cpu", task.dtype, task.mode)
    tables = _default_shape_tables(prefix, module)
    passed: dict = {}
    for seed in (1, 2):
        inputs = make_inputs(module, seed, "cpu")
        with torch.no_grad():
            ref = model(*inputs)
        n = inputs[0].numel()
        sums = _streamed_sums(prefix, inputs, tables)
        del inputs
        exact = torch.tensor(sums["exact"] / n, dtype=torch.float64)
        for size, scale in zip(HONEST_BLOCKS, (0.5, 0.25)):
            honest = _honest_mean(sums[("blocks", size)], n)
            assert _judged(task, ref, exact, honest, scale), f"{prefix}: the honest kernel ({size}) is off by " \
                                                             f"{abs(honest - float(exact)):.3g}"
        for key, value in _estimates(sums, n).items():
            passed.setdefault(key, []).append(_judged(task, ref, exact, value))
    assert not [key for key, verdicts in passed.items() if all(verdicts)], passed




def _screen_fires(prefix: str, x) -> bool:
    """Round 41's candidate's test for the judge's outliers, made for this round's inputs: round 41's (``|p| > 9``)
    fires on every standard input now (the predictions are heavy-tailed), so that candidate is exact everywhere
    and saves nothing; this one tells outlier inputs apart from the first eighth of each row."""
    part = x.reshape(-1, x.shape[-1])[:, :x.shape[-1] // 8]
    return float((part.abs() >= SCREEN_MAGNITUDE.get(prefix, 1e4)).double().mean()) > SCREEN_SHARE


@pytest.mark.parametrize("prefix", sorted(LOSSES))
def test_a_partial_reader_can_still_tell_the_judges_outliers_from_standard_inputs(prefix):
    """The attack's other half after the mend: at 4M elements, a screen on the first eighth of each row of the
    first input fires on the outlier and the wide inputs and on no standard input, so the partial reader is exact
    wherever the judge plants outliers and is judged on standard inputs alone (where the slow test below shows it
    wrong)."""
    from kernelgym.judge.inputs import OUTLIERS, WIDE_OUTLIERS

    module = _task(prefix).load_module(small=True)
    module.__dict__.update(SAMPLE_SHAPES[prefix])
    for seed in (5, 6):
        assert not _screen_fires(prefix, make_inputs(module, seed, "cpu")[0])
        for outlier in (OUTLIERS, WIDE_OUTLIERS):
            assert _screen_fires(prefix, make_inputs(module, seed, "cpu", outlier)[0])


#: (task, magnitude below which a 32-byte sector's labels are not read): the skimming candidate's threshold
SKIMS = [("L1/85", 30.0), ("L1/88", 100.0)]


def _label_variance(prefix: str, p):
    """Per element, the variance of the loss over the light input (hinge labels +-1, BCE targets uniform in [0, 1))
    given the prediction ``p``: what a candidate that does not read that element's label errs by, squared."""
    import torch

    if prefix == "L1/85":
        return ((torch.clamp(1 - p, min=0) - torch.clamp(1 + p, min=0)) / 2) ** 2
    return p * p / 12


@pytest.mark.xfail(strict=True, reason="open, a limit of a float32 mean of 268M elements at rtol 1e-4: the labels "
                                       "of small predictions (this file's docstring)")
@pytest.mark.parametrize("prefix,threshold", SKIMS)
def test_a_loss_that_skims_the_labels_of_small_predictions_is_predicted_wrong(prefix, threshold):
    """The candidate reads every prediction and, per 32-byte sector (8 elements), the labels (targets) only where a
    prediction of the sector is at least ``threshold`` in magnitude, taking the label's expectation elsewhere: it
    skips 76% (L1/85) and 93% (L1/88) of the light input's sectors, 38-47% of all bytes, and is predicted off by
    only 0.28 and 0.35 of the tolerance (std, default shape). A label moves a mean of N elements by ``|p| / N``;
    wherever ``|p|`` is ordinary, ``sqrt(N)`` of those stay below 1e-4 of the mean once N is above about 1e8, and a
    prediction's size tells where a label matters, so no draw of the inputs hides it (hinge labels are +-1, BCE
    targets lie in [0, 1])."""
    task = _task(prefix)
    p, t = (x.double().reshape(-1) for x in _sample_inputs(prefix, 5))
    skipped = (p.view(-1, 8).abs() < threshold).all(1).repeat_interleave(8)
    predicted = math.sqrt(float((_label_variance(prefix, p) * skipped).mean()) / LOSSES[prefix][0])
    tol = task.atol + task.rtol * float(_elementwise(prefix, p, t).mean())
    assert predicted > 3 * tol, f"{prefix}: skimming is predicted off by {predicted / tol:.2g} of the tolerance"
