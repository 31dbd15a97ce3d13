"""Comparing a candidate's outputs with the reference's (trusted side).

Contract of :func:`compare_outputs`: same number of outputs; for each tensor the same shape and dtype, NaN and
±Inf at exactly the same positions, and every finite element within ``atol + rtol * |ref|`` (``allclose``); for
``statistical`` tasks (random outputs) the distribution is compared instead: non-finite counts, mean and standard
deviation, and, given two more draws of the reference, whether the output could be one more draw (how it follows
its input, the distribution of its values: :mod:`kernelgym.judge.statistical`).
Non-tensor outputs (Python numbers) are compared the same way as 0-d tensors.

An optional second reference (``exacts``: the same model run in float64, :meth:`ReferenceSide.exact_outputs`) makes
the check "at least as accurate as the eager reference": a finite element passes when it is within tolerance of the
eager reference *or* of the float64 result. A low-precision reference's own rounding (bf16 scores before a softmax,
TF32 convolutions) then never fails a kernel that computes more exactly, while NaN/Inf positions, shapes and dtypes
are still those of the eager reference.

An allowance around the float64 result (``allowances``, the wide trial's: outliers at 1e5 whose terms cancel leave
results that no float32 computation gets within an ordinary tolerance) widens that second tolerance by an amount per
row of the output (:class:`RowAllowance`) computed from the reference alone, never from the candidate's outputs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from kernelgym.judge import fused_compare


@dataclass
class TrialCheck:
    ok: bool
    reason: str = ""
    max_abs_err: float | None = None
    max_rel_err: float | None = None
    worst_index: list | None = None
    output: int | None = None
    #: where it failed on elements beyond tolerance: how many (in the failing output, or the failing row of a
    #: chaotic one); not part of :meth:`to_dict`
    beyond: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "reason": self.reason, "max_abs_err": self.max_abs_err,
                "max_rel_err": self.max_rel_err, "worst_index": self.worst_index, "output": self.output}


def describe(value) -> dict[str, Any]:
    """Shape/dtype description used to check a candidate output before its payload is read."""
    import torch

    if torch.is_tensor(value):
        return {"kind": "tensor", "dtype": str(value.dtype).replace("torch.", ""), "shape": list(value.shape)}
    return {"kind": "scalar"}


def check_description(ref_desc: dict, cand_desc: dict, index: int) -> TrialCheck | None:
    """A failing :class:`TrialCheck` when shape or dtype differ, else ``None``."""
    if ref_desc.get("kind") != cand_desc.get("kind"):
        got = f"an object of type {cand_desc['type']!r}" if cand_desc.get("type") else f"a {cand_desc.get('kind')}"
        return TrialCheck(False, f"output {index}: expected a {ref_desc.get('kind')}, got {got}",
                          output=index)
    if ref_desc.get("kind") == "tensor":
        if list(ref_desc["shape"]) != list(cand_desc.get("shape", [])):
            return TrialCheck(False, f"output {index}: shape {tuple(cand_desc.get('shape', []))} "
                                     f"!= expected {tuple(ref_desc['shape'])}", output=index)
        if ref_desc["dtype"] != cand_desc.get("dtype"):
            return TrialCheck(False, f"output {index}: dtype {cand_desc.get('dtype')} != expected {ref_desc['dtype']}",
                              output=index)
    return None


def check_layout(ref, cand_desc: dict, index: int, device: str | None = None) -> TrialCheck | None:
    """A failing :class:`TrialCheck` when the candidate's tensor output (described as the forward returned it,
    :func:`kernelgym.judge.timing.layout`) is laid out otherwise than contiguously or as the reference's ``ref`` is,
    or is not on ``device`` (the judge's device by the worker's name for it; default the reference's), else ``None``.

    The comparison reads values only, and the judge makes every output dense before it reads it: a timed call's
    snapshot (``clone``) materialises an expanded (stride 0) or lazily negated view, and the copy-out
    (:func:`kernelgym.judge.transfer.flat_bytes`) any strided one, both outside the timed interval. A forward that
    returned a view where the reference materialises (L1/100 asks for its permuted result contiguous: an
    element-wise kernel in the input's layout then ``permute`` was ``ok`` under every policy, a sixteenth red-team
    helper) left part of the task's work to the judge, untimed. An output is accepted contiguous, or with exactly
    the reference's strides (a reference that returns a transposed view: honest kernels return it either way), and
    a lazy negative or conjugate view only where the reference's output is one; and on the reference output's
    device: the timer synchronises the judge's GPU only, so work a forward queued on another GPU of the machine and
    left there in its output would run after the timed interval (not shown on a GPU: the machines lent to the red
    team had one). Whether an output that shares memory with an input may (where the reference's output does too)
    is the session's to say (:meth:`kernelgym.judge.session.Session._aliasing_refused`): it runs the reference once
    more to know."""
    import torch

    if not torch.is_tensor(ref) or cand_desc.get("kind") != "tensor":
        return None
    strides, contiguous, lazy = cand_desc.get("strides"), cand_desc.get("contiguous"), cand_desc.get("lazy")
    if not isinstance(contiguous, bool) or not isinstance(lazy, bool) or not isinstance(strides, list) or \
            not isinstance(cand_desc.get("device"), str) or not isinstance(cand_desc.get("aliases_input"), bool):
        return TrialCheck(False, f"output {index}: its layout was not described", output=index)
    if cand_desc["device"] != (device or str(ref.device)):
        return TrialCheck(False, f"output {index}: on {cand_desc['device']}, the inputs on {device or ref.device}: "
                                 f"return it on the device of the inputs", output=index)
    ref_strides = list(ref.stride())
    shape = cand_desc.get("shape")
    if not contiguous and not (isinstance(shape, list) and len(shape) == len(strides) and
                               (_same_layout(shape, strides, ref_strides) or _in_order(shape, strides))):
        return TrialCheck(False, f"output {index}: strides {tuple(strides)} are neither contiguous nor the "
                                 f"reference's {tuple(ref_strides)}, nor in its elements' order: allocate the "
                                 f"output contiguous (`torch.empty(shape)`, not `empty_like` of a channels_last or "
                                 f"transposed tensor) and write it in that order, or return it materialised "
                                 f"(`.contiguous()` inside the forward), not a permuted or expanded layout the judge "
                                 f"would have to copy", output=index)
    if lazy and not (ref.is_neg() or ref.is_conj()):
        return TrialCheck(False, f"output {index}: a lazy negative or conjugate view (its bytes are not its "
                                 f"values): return the output materialised", output=index)
    return None


def _same_layout(shape: list, strides: list, ref_strides: list) -> bool:
    """Whether ``strides`` address an output of ``shape`` as ``ref_strides`` do: equal on every dimension longer than
    one (a size-1 dimension's stride addresses nothing, and a zero-size output nothing at all; a twenty-first
    red-team helper: ``y.t()[:, None]`` against a reference's ``.t().unsqueeze(1)`` was refused for the stride of
    its size-1 dimension)."""
    if len(ref_strides) != len(shape):
        return False
    return 0 in shape or all(s == r for n, s, r in zip(shape, strides, ref_strides) if n > 1)


def _in_order(shape: list, strides: list) -> bool:
    """Whether an output of ``shape`` and ``strides`` lies in memory in its elements' own (row-major) order, unit
    stride innermost and each dimension's step past the whole of the inner ones, gaps allowed: a slice of a padded
    buffer the forward wrote (``buf[:, :N]`` of rows padded for alignment). Its copy-out only leaves the gaps out,
    element after element in the order the forward wrote them: no permutation (L1/100's ``permute``, a channels_last
    or transposed buffer) and no repetition (an expanded view, stride 0) is left to the judge (a twenty-first
    red-team helper: the padded slice was refused as a view)."""
    inner = 1  # the extent, in elements, of the dimensions inside the current one
    for n, s in reversed([(n, s) for n, s in zip(shape, strides) if n != 1]):
        if n == 0:
            return True
        if s < inner or (inner == 1 and s != 1):
            return False
        inner = s * n
    return True


#: elements compared at once: float64 temporaries of one chunk stay near 0.5 GB whatever the output's size
CHUNK = 1 << 26


def all_finite(values: tuple) -> bool:
    """Whether every floating tensor among ``values`` is finite everywhere (:data:`CHUNK` elements at a time)."""
    import torch

    for value in values:
        if torch.is_tensor(value) and value.is_floating_point():
            flat = value.reshape(-1)
            if not all(bool(torch.isfinite(flat[s:s + CHUNK]).all()) for s in range(0, flat.numel(), CHUNK)):
                return False
    return True


def compare_tensor(ref, out, atol: float, rtol: float, check: str = "allclose", index: int = 0,
                   exact=None, again=None, allowance: "RowAllowance | None" = None) -> TrialCheck:
    """Compare one output tensor against the reference, on the reference's device, :data:`CHUNK` elements at a
    time (``out`` may live elsewhere, e.g. on the CPU after its transfer; each chunk is moved as needed; where all
    are on one GPU and no ``allowance`` is given, each chunk's figures come from one pass of a kernel,
    :mod:`kernelgym.judge.fused_compare`, with the same verdict and figures). With
    ``exact`` (same shape, any floating dtype), an element also passes within tolerance of it (module docstring),
    that tolerance widened by ``allowance`` (absolute, per row; the wide trial's, module docstring).
    ``again``: for ``statistical``, further independent draws of the reference on the same input (a sequence of
    tensors, :mod:`kernelgym.judge.statistical`)."""
    import torch

    ref_t = torch.as_tensor(ref)
    out_t = torch.as_tensor(out)
    if ref_t.shape != out_t.shape:
        return TrialCheck(False, f"output {index}: shape {tuple(out_t.shape)} != expected {tuple(ref_t.shape)}",
                          output=index)
    if ref_t.dtype != out_t.dtype:
        return TrialCheck(False, f"output {index}: dtype {out_t.dtype} != expected {ref_t.dtype}", output=index)
    if not ref_t.is_floating_point() and not ref_t.is_complex() and check != "statistical":
        return _compare_exactly(ref_t.reshape(-1), out_t.reshape(-1), ref_t.shape, index)
    if ref_t.is_complex():
        ref_t, out_t = torch.view_as_real(ref_t), torch.view_as_real(out_t)
    shape = ref_t.shape
    ref_flat, out_flat = ref_t.reshape(-1), out_t.reshape(-1)
    exact_flat = None
    if exact is not None and ref_t.is_floating_point() and not ref_t.is_complex():
        exact_t = torch.as_tensor(exact)
        if exact_t.shape == ref_t.shape and exact_t.is_floating_point():
            exact_flat = exact_t.reshape(-1)
    if check == "statistical":
        from kernelgym.judge.statistical import compare_statistics

        more = [torch.as_tensor(m).reshape(-1) for m in (again or ())]
        ok, reason, err = compare_statistics(ref_flat, out_flat, atol, rtol, more)
        return TrialCheck(ok, f"output {index}: {reason}" if reason else "", err, None, None, index)
    if ref_flat.numel() == 0:
        return TrialCheck(True, output=index, max_abs_err=0.0, max_rel_err=0.0)
    floating = ref_t.is_floating_point()
    n_bad, max_abs, max_rel = 0, 0.0, 0.0
    worst, worst_excess, worst_got, worst_expected = 0, -float("inf"), 0.0, 0.0
    chaotic = allowance.chaotic if allowance is not None and exact_flat is not None else None
    beyond = None if chaotic is None else torch.zeros(chaotic.numel(), dtype=torch.int64, device=chaotic.device)
    fused = allowance is None and fused_compare.usable(ref_flat, out_flat, exact_flat)
    for start in range(0, ref_flat.numel(), CHUNK):
        if fused:  # one pass of a kernel; the torch path below where NaN/Inf positions differ (its message)
            figures = fused_compare.chunk_figures(
                ref_flat[start:start + CHUNK], out_flat[start:start + CHUNK],
                None if exact_flat is None else exact_flat[start:start + CHUNK], atol, rtol)
            if figures is not None and not figures.nonfinite_mismatch:
                n_bad += figures.n_bad
                max_abs, max_rel = max(max_abs, figures.max_abs), max(max_rel, figures.max_rel)
                if figures.max_excess > worst_excess:
                    worst, worst_excess = start + figures.worst, figures.max_excess
                    worst_got = float(out_flat[worst].item())
                    worst_expected = float(ref_flat[worst].item())
                continue
        r = ref_flat[start:start + CHUNK].to(torch.float64)
        o = out_flat[start:start + CHUNK].to(device=r.device).to(torch.float64)
        if floating:
            for name, fn in (("NaN", torch.isnan), ("+Inf", torch.isposinf), ("-Inf", torch.isneginf)):
                rm, om = fn(r), fn(o)
                if not torch.equal(rm, om):
                    first = start + int(torch.nonzero(rm != om)[0].item())
                    where = _unravel(first, shape)
                    return TrialCheck(False, f"output {index}: {name} positions differ (first at {where}; reference "
                                             f"{'has' if bool(rm[first - start]) else 'has no'} {name} there)",
                                      worst_index=where, output=index)
            finite = torch.isfinite(r)
            r = torch.where(finite, r, torch.zeros_like(r))
            o = torch.where(finite, o, torch.zeros_like(o))
        diff = (o - r).abs()
        excess = diff - (atol + rtol * r.abs())
        if exact_flat is not None:
            e = exact_flat[start:start + CHUNK].to(device=r.device, dtype=torch.float64)
            widened = atol + rtol * e.abs()
            rows = None if allowance is None else allowance.rows(start, e.numel())
            if rows is not None:
                widened = widened + allowance.per_row[rows].to(device=e.device, dtype=torch.float64)
            excess_exact = (o - e).abs() - widened
            excess = torch.minimum(excess, torch.where(torch.isfinite(e), excess_exact, torch.full_like(e, math.inf)))
            if chaotic is not None:  # counted per row here, judged after the last chunk
                forgiven = (excess > 0).to(chaotic.device) & chaotic[rows]
                if bool(forgiven.any()):
                    beyond.index_add_(0, rows[forgiven], torch.ones_like(rows[forgiven]))
                    excess = excess.masked_fill(forgiven.to(excess.device), -math.inf)
        at = int(torch.argmax(excess).item())
        n_bad += int((excess > 0).sum().item())
        max_abs = max(max_abs, float(diff.max().item()))
        max_rel = max(max_rel, float((diff / r.abs().clamp_min(1e-12)).max().item()))
        if float(excess[at].item()) > worst_excess:
            worst, worst_excess = start + at, float(excess[at].item())
            worst_got, worst_expected = float(o[at].item()), float(r[at].item())
    if beyond is not None and bool((beyond > allowance.free()).any()):
        row = int(torch.argmax(beyond).item())
        return TrialCheck(False, f"output {index}: {int(beyond[row].item())} of {allowance.row_len} elements of "
                                 f"row {row} (flat elements {row * allowance.row_len} on) lie beyond the float64 "
                                 f"result's allowance, where at most {allowance.free()} may in a row whose result is "
                                 f"a threshold's", max_abs, max_rel, _unravel(row * allowance.row_len, shape), index,
                          beyond=int(beyond[row].item()))
    worst_index = _unravel(worst, shape)
    if worst_excess > 0:
        return TrialCheck(False, f"output {index}: {n_bad} of {ref_flat.numel()} elements outside atol={atol:g} "
                                 f"rtol={rtol:g}; worst at {tuple(worst_index)}: got {worst_got:.6g}, expected "
                                 f"{worst_expected:.6g}", max_abs, max_rel, worst_index, index, beyond=n_bad)
    return TrialCheck(True, "", max_abs, max_rel, worst_index, index)


#: what a row of :class:`RowAllowance` is: the slice along an output's last dimension when that has at least
#: ``ROW_MIN`` elements, else ``ROW_BLOCK`` consecutive elements in flat order (a 1-d output, a column): one
#: allowance for a whole 1-d output let a kernel answer zeros on X/32's trigonometric mix, whose few chaotic elements
#: set it (a red-team finding)
ROW_MIN, ROW_BLOCK = 16, 64
#: a row of a wide trial's output is chaotic when a pair of opposite moves of the data by a relative ``rel`` moves
#: it unevenly by this many times ``rel`` times its largest magnitude (:meth:`LargestChange.allowances`): a smooth
#: function's pairs are even to first order (uneven by about ``rel**2`` of its terms); in a chaotic row, a share
#: (1 / CHAOTIC_FREE_SHARE, at least CHAOTIC_FREE_MIN) of the elements may lie beyond the allowance (honest TF32
#: kernels had 1 or 2 such elements in an output: L3/49 on the H100 and in the CPU replay)
CHAOTIC_CONDITION = 10.0
CHAOTIC_FREE_SHARE, CHAOTIC_FREE_MIN = 256, 2


@dataclass
class RowAllowance:
    """An absolute allowance per row of an output: ``per_row[k]`` for its elements ``k * row_len`` to
    ``(k + 1) * row_len - 1`` in flat order (rows: :data:`ROW_MIN`). Values may be ``inf``."""
    row_len: int
    per_row: Any  # a 1-d float64 tensor
    #: rows (a 1-d bool tensor, or None) where up to :meth:`free` elements may lie beyond ``per_row``: *chaotic*
    #: rows (:meth:`LargestChange.allowances`)
    chaotic: Any = None

    def free(self) -> int:
        """How many elements of a chaotic row may lie beyond its allowance: :data:`CHAOTIC_FREE_SHARE` of the row,
        at least :data:`CHAOTIC_FREE_MIN`."""
        return max(CHAOTIC_FREE_MIN, self.row_len // CHAOTIC_FREE_SHARE)

    @classmethod
    def of_change(cls, change) -> "RowAllowance":
        """The largest of ``change`` (a tensor of the output's shape, ``inf`` allowed) in each row."""
        import torch

        last = int(change.shape[-1]) if change.dim() >= 2 else 0
        row_len = max(1, min(last if last >= ROW_MIN else ROW_BLOCK, change.numel()))
        flat = change.reshape(-1)
        pad = -flat.numel() % row_len
        if pad:
            flat = torch.cat([flat, flat.new_zeros(pad)])
        return cls(row_len, flat.reshape(-1, row_len).amax(dim=1) if flat.numel() else flat)

    def largest(self) -> float:
        return float(self.per_row.max().item()) if self.per_row.numel() else 0.0

    def rows(self, start: int, count: int):
        """The row of each of the flat elements ``start`` to ``start + count - 1`` (on ``per_row``'s device, as
        ``chaotic`` is)."""
        import torch

        return torch.arange(start, start + count, device=self.per_row.device) // self.row_len

    def scaled(self, factor: float) -> "RowAllowance":
        return RowAllowance(self.row_len, self.per_row * factor, self.chaotic)


def _finite_abs(t):
    import torch

    return torch.where(torch.isfinite(t), t.abs(), torch.zeros((), dtype=t.dtype, device=t.device))


def _row_max(t, so_far=None):
    """Per row of ``t`` (:class:`RowAllowance`'s rows), its largest value; the larger of that and ``so_far``."""
    import torch

    rows = RowAllowance.of_change(t).per_row
    return rows if so_far is None else torch.maximum(rows, so_far)


class LargestChange:
    """Per output, the largest change from ``exacts`` (float64 outputs) over the moved results :meth:`add` is given
    (the same model's outputs on moved data, :meth:`kernelgym.judge.reference.ReferenceSide.perturbed_outputs`,
    which come in opposite pairs: the move by ``u``, then the move by ``-u``): ``inf`` where a moved result is not a
    number where the exact one is finite, nothing where the exact one is not finite (the comparison itself decides
    those); and, per row, how far each pair is from answering its two moves alike and opposite (:meth:`allowances`).
    Outputs that are not floating tensors of the exact one's shape in every move get no allowance."""

    def __init__(self, exacts: tuple):
        self.exacts = exacts
        self._start()

    def _start(self) -> None:
        exacts = self.exacts
        self.changes: list = [None] * len(exacts)
        self.scales: list = [None] * len(exacts)  # per row, the largest finite magnitude, exact or moved
        self.uneven: list = [None] * len(exacts)  # per row, the largest |change by u + change by -u| of a pair
        self._first_of_pair: list = [None] * len(exacts)  # the signed change of the pair's first move
        self.lacking: set[int] = set()

    def add(self, index: int, moved: tuple) -> None:
        """The ``index``-th moved result (0: the first, and a fresh start when the moves are made again)."""
        import torch

        if index == 0:
            self._start()
        if len(moved) != len(self.exacts):
            self.lacking.update(range(len(self.exacts)))
            return
        for i, (e, m) in enumerate(zip(self.exacts, moved)):
            if not (torch.is_tensor(e) and torch.is_tensor(m) and e.is_floating_point() and e.shape == m.shape):
                self.lacking.add(i)
                continue
            m = m.to(device=e.device, dtype=torch.float64)
            self.scales[i] = _row_max(_finite_abs(m), self.scales[i])
            signed = m.sub_(e).masked_fill_(~torch.isfinite(e), 0.0)  # in place (gigabytes): m is spent
            first = self._first_of_pair[i]
            if first is None:
                self._first_of_pair[i] = signed
            else:
                self._first_of_pair[i] = None
                self.uneven[i] = _row_max(_finite_abs(first.add_(signed)), self.uneven[i])
                del first
            change = signed.abs().masked_fill_(torch.isnan(signed), math.inf)
            self.changes[i] = change if self.changes[i] is None else torch.maximum(self.changes[i], change,
                                                                                    out=self.changes[i])

    def allowances(self, factor: float, rel: float) -> tuple:
        """A :class:`RowAllowance` per output (``None`` where it has none): the largest change in each row, times
        ``factor``. A row is *chaotic* (``RowAllowance.chaotic``) where a pair of opposite moves of relative size
        ``rel`` moved an element unevenly (``|change by u + change by -u|``, zero to first order for any smooth
        function) by at least :data:`CHAOTIC_CONDITION` times ``rel`` times the row's largest magnitude, exact or
        moved. There the result is a threshold's: an honest kernel's rounding flips gates upstream that no move of
        the data reproduces, so a few elements of such a row (:meth:`RowAllowance.free`) may lie beyond the
        allowance; a kernel wrong throughout the row (operands saturated at float16's range, say) is not. On L3/49's
        six gated layers with TF32-truncated operands (CPU replay): a carried 1.4e6 gated to 0 in the last layer
        after an element two layers up flipped, where the moves changed the row by 2.9e5 at most; in another row
        the exact result gated a carried 1.3e6 to 0 in every move and the kernel kept it. Terms that cancel without
        a threshold (a product's rows with outliers) move evenly and keep their allowance."""
        out = []
        for i, (c, e) in enumerate(zip(self.changes, self.exacts)):
            if c is None or i in self.lacking:
                out.append(None)
                continue
            moved = RowAllowance.of_change(c).scaled(factor)
            if self.uneven[i] is not None:
                scale = _row_max(_finite_abs(e), self.scales[i])
                moved.chaotic = (self.uneven[i] >= CHAOTIC_CONDITION * rel * scale) & (scale > 0)
            out.append(moved)
        return tuple(out)


def _compare_exactly(ref_flat, out_flat, shape, index: int) -> TrialCheck:
    """Integer and bool outputs (indices, counts, masks) must be exact, whatever the task's tolerance; compared in
    their own dtype, :data:`CHUNK` elements at a time (as float64, int64 values above 2**53 would round alike)."""
    import torch

    n_bad, first = 0, None
    for start in range(0, ref_flat.numel(), CHUNK):
        r = ref_flat[start:start + CHUNK]
        o = out_flat[start:start + CHUNK].to(device=r.device)
        bad = r != o
        count = int(bad.sum().item())
        if count and first is None:
            first = start + int(torch.nonzero(bad)[0].item())
        n_bad += count
    if not n_bad:
        return TrialCheck(True, "", 0.0, 0.0, None, index)
    where = _unravel(first, shape)
    got, expected = out_flat[first].item(), ref_flat[first].item()
    return TrialCheck(False, f"output {index}: {n_bad} of {ref_flat.numel()} elements outside atol=0 rtol=0 "
                             f"(integer outputs are exact); first at {tuple(where)}: got {got}, expected {expected}",
                      None, None, where, index)


def _unravel(flat_index: int, shape) -> list[int]:
    out = []
    for size in reversed(list(shape)):
        out.append(flat_index % size)
        flat_index //= size
    return out[::-1]


def _is_tensor(value) -> bool:
    import torch

    return torch.is_tensor(value)


def _as_float64(value):
    import torch

    return torch.tensor(float(value), dtype=torch.float64)


def compare_outputs(refs: tuple, outs: tuple, atol: float, rtol: float, check: str = "allclose",
                    exacts: tuple | None = None, agains: tuple | None = None,
                    allowances: tuple | None = None) -> TrialCheck:
    """Compare every output; the first failing one decides the verdict, else the largest errors are reported.
    ``exacts``: float64 outputs of the same model, a second reference per element (module docstring). ``agains``:
    for ``statistical``, further draws of the reference's outputs on the same inputs, one tuple per draw (the
    exchangeability and distribution checks of :mod:`kernelgym.judge.statistical` need two). ``allowances``: a
    :class:`RowAllowance` (or ``None``) per output around its ``exacts`` entry (module docstring)."""
    if len(refs) != len(outs):
        return TrialCheck(False, f"expected {len(refs)} output(s), got {len(outs)}")
    if exacts is not None and len(exacts) != len(refs):
        exacts = None
    if allowances is not None and (exacts is None or len(allowances) != len(refs)):
        allowances = None
    agains = [draw for draw in (agains or ()) if len(draw) == len(refs)]
    best = TrialCheck(True, max_abs_err=0.0, max_rel_err=0.0)
    for i, (r, o) in enumerate(zip(refs, outs)):
        if not _is_tensor(r) and not _is_tensor(o):  # Python numbers (the worker sends every one as a float)
            if isinstance(r, int):  # an integer answer (a count, a flag) is exact, as integer tensors are
                if not isinstance(o, (int, float)) or float(o) != float(r):
                    return TrialCheck(False, f"output {i}: expected the integer {r}, got {o!r}")
                continue
            r, o = _as_float64(r), _as_float64(o)
        res = compare_tensor(r, o, atol, rtol, check, i, exacts[i] if exacts is not None else None,
                             [draw[i] for draw in agains], allowances[i] if allowances is not None else None)
        if not res.ok:
            return res
        if (res.max_abs_err or 0) >= (best.max_abs_err or 0):
            best = res
    if check == "statistical" and len(refs) > 1 and len(agains) >= 2:
        from kernelgym.judge.statistical import joint_gap

        reason = joint_gap(outs, agains[1], getattr(refs[0], "device", "cpu"))
        if reason:
            return TrialCheck(False, reason)
    return best
