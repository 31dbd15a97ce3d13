"""Comparing a random output with the reference's (``check = "statistical"``: the Random tasks), on the trusted side.

Two draws of a random operator on the same input never agree element by element, so a statistical comparison asks
whether the candidate's output could have been one more draw of the reference. :func:`compare_statistics` checks,
for one output, against the reference's draw ``a`` and, when given, two more independent draws ``b`` and ``d`` on
the same inputs (:meth:`~kernelgym.judge.reference.ReferenceSide.outputs` reseeds its generator secretly every call):

1. **Non-finite values.** The candidate's counts of NaN, +Inf and -Inf agree with the reference's within sampling
   noise (:data:`COUNT_Z` standard deviations, at least 6 elements where the reference has none: a law can draw a
   rare infinity, ``-log(u)`` at ``u == 0``, that three draws of the reference missed). Moments of a NaN are NaN,
   and a comparison with NaN is false: an all-NaN output, which is what poisoned or uninitialised memory holds,
   used to pass.
2. **Moments.** Mean and standard deviation of the finite elements agree within ``atol + rtol * scale``, or within
   :data:`SAMPLING_Z` standard errors of two samples the reference's size where that is wider: a task's tolerance
   is a precision, and at small shapes (the CPU's) two honest draws differ by more than ``1e-4`` by chance alone.
3. **Exchangeability with a fresh draw** (with ``b`` and ``d``). Given the inputs, an honest candidate's ``c`` and
   the reference's ``d`` are two independent draws of the same law, so any statistic of ``c`` against ``a`` and
   ``b`` has the same mean as the same statistic of ``d``. Per element, on standardised values:

   - *following the input*: ``c * (a + b) / 2`` against ``d * (a + b) / 2``. Lower for an output that ignores its
     input (fresh noise of the right moments), higher for one with no randomness (a deterministic function of the
     input with the right moments): both fail, the test is two-sided;
   - *spread following the input*: ``|c - a| * |b - a|`` against ``|d - a| * |b - a|``: an output whose noise has
     the right size on average but not per element (noise that ignores the input that scales it);

   each fails when the mean difference exceeds :data:`DEPENDENCE_Z` standard errors estimated from the differences
   themselves, and is skipped where a few extreme elements carry the statistic of the reference's draws
   (:data:`MIN_EFFECTIVE_ELEMENTS`, computed from the reference's draws only, so no candidate can switch it off).
4. **The distribution of values** (with ``d``): the largest gap between the candidate's and ``d``'s cumulative
   distributions, each value allowed its tolerance ``atol + rtol * |value|`` of slack (rounding to a neighbouring
   value of a low-precision dtype is not a difference), over at most :data:`KS_SAMPLE` elements at a stride and
   offset drawn here, against the two-sample Kolmogorov-Smirnov bound at :data:`KS_ALPHA`: values of the wrong
   support (a continuous output where the reference draws 0 or 1) fail.

5. **Fresh randomness** (:func:`repeat_gap`, called by the session): the candidate is called a second time on the
   first standard trial's inputs, and its two outputs must differ as much as two draws of the reference do. Every
   test above looks at one output's law, which a fixed pattern (a constant seed, a hash of the position, no
   generator at all) can match.

6. **Outputs drawn together** (:func:`joint_gap`, for several outputs): the product of two outputs' standardised
   values per element, against the same in the fresh draw ``d`` (a dropout's output and its mask taken from
   different samples).

7. **Elements drawn independently** (:func:`lag_gap`, with ``b`` and ``d``): the residual ``c - (a + b) / 2`` has
   mean zero given the inputs and is independent from element to element for an honest ``c``, so its
   autocorrelation at every lag (by FFT, over a window of up to :data:`LAG_WINDOW` elements) is noise, whose size
   the fresh draw's residual gives. Every test above looks at one element at a time: noise drawn once for 16
   neighbouring elements (16 times fewer draws) passed X/45 (a red-team finding). Every lag of the window, the
   lags between it and a second window elsewhere, and sums over bands of lags (of the residuals and of their
   squares): reuse at hashed positions within a block, beyond half the window or with a period above it passed
   the single-lag test up to half the window (a second red-team helper).

8. **Agreement at the law's atoms** (:func:`agreement_gap`, with ``b`` and ``d``): where two draws of the reference
   agree, the candidate must agree with them as often as a fresh draw does. Standardised values and the
   distribution of values keep a scale or a rounding of a law's atoms (a dropout's kept values rounded to bfloat16
   or scaled 1% off passed every test above: a red-team finding).

Everything runs in float64 on the reference's device, an eighth of :data:`~kernelgym.judge.correctness.CHUNK`
elements at a time (up to eight float64 temporaries of a chunk are alive at once).
"""

from __future__ import annotations

import math
import secrets

#: standard errors by which a statistic of the candidate may differ from the same statistic of a fresh reference
#: draw (two-sided; at 6 an honest candidate fails about twice in 10**9 comparisons under normality)
DEPENDENCE_Z = 6.0
#: standard errors (of a difference of two samples the reference's size) by which mean and standard deviation may
#: differ, where that is wider than the task's tolerance
SAMPLING_Z = 6.0
#: a statistic needs the reference draws' share of it spread over at least this many elements (``(sum x**2)**2 /
#: sum x**4`` of the reference's per-element values); below it a few extreme values decide it and its normal
#: approximation fails
MIN_EFFECTIVE_ELEMENTS = 1000
#: standard deviations (Poisson) by which a count of NaN or infinite elements may differ from the reference's
COUNT_Z = 6.0
#: elements compared by the distribution test (sorted on the reference's device)
KS_SAMPLE = 1 << 21
#: the distribution test's false-alarm rate for an honest candidate
KS_ALPHA = 1e-9
#: elements (a window at an offset drawn here) whose residuals' autocorrelation :func:`lag_gap` tests, at every lag
#: up to half of it
LAG_WINDOW = 1 << 22
#: standard errors by which the residuals' autocorrelation may stand out at its most outstanding lag: of two
#: million lags some pass 6 by chance (the largest of that many normal ones passes 8.5 once in 10**9). Measured on
#: honest draws of the six Random tasks at the CPU's shapes: at most 5.4 on standard inputs (60 to 80 draws each),
#: 8.5 on X/49's outlier inputs (150 draws: a few elements' noise 30 times the others'); noise shared by 2 to 1024
#: neighbours, or a second half repeating the first, stood out by 120 to 250
LAG_Z = 16.0
#: standard errors by which the residuals' autocorrelation summed over a band of lags ``[2**k, 2**(k+1))`` may
#: stand out (:func:`lag_gap`; about 22 bands at most, each sum of many lags close to normal)
BAND_Z = 8.0


def compare_statistics(ref_flat, out_flat, atol: float, rtol: float, more=()):
    """``(ok, reason, mean_abs_diff)`` for one flattened output (module docstring). ``more``: further independent
    draws of the reference on the same inputs, same shape; with two of them (``b``, ``d``) the exchangeability and
    distribution checks run, with fewer only the counts and moments."""
    from kernelgym.judge.correctness import CHUNK

    chunk = max(CHUNK // 8, 1)  # up to eight float64 temporaries per chunk here: together near the comparison's 0.5 GB
    device = ref_flat.device
    more = [m for m in more if m is not None and m.shape == ref_flat.shape]
    ref_counts = [_nonfinite_counts(x, device, chunk) for x in [ref_flat, *more]]
    out_counts = _nonfinite_counts(out_flat, device, chunk)
    for k, kind in enumerate(("NaN", "+Inf", "-Inf")):
        seen = [c[k] for c in ref_counts]
        spread = max(seen) - min(seen)
        # none where no draw of the reference has any: 6 of each kind, 18 elements never looked at again (the
        # moments and tests read finite positions), passed on every Random task (a thirteenth red-team helper)
        allowed = COUNT_Z * math.sqrt(max(seen)) + spread if max(seen) else 0
        if abs(out_counts[k] - seen[0]) > allowed:
            return False, f"{out_counts[k]} {kind} element(s), the reference has {seen[0]}", None
    (rm, rs, n_ref, m4), (om, os_, n_out, _) = (_moments([ref_flat], device, chunk)[0],
                                                 _moments([out_flat], device, chunk)[0])
    if n_ref == 0 or n_out == 0:
        return n_ref == n_out, "" if n_ref == n_out else f"{n_out} finite element(s), the reference has {n_ref}", None
    tol = atol + rtol * max(abs(rm), rs, 1e-12)
    # two draws' moments differ by sampling noise alone: standard errors of the reference's (so a candidate cannot
    # widen them), for a difference of two independent samples
    tol_mean = max(tol, SAMPLING_Z * math.sqrt(2.0 / n_ref) * rs)
    tol_std = max(tol, SAMPLING_Z * math.sqrt(2.0 * max(m4 - rs ** 4, 0.0) / n_ref) / (2 * rs) if rs > 0 else 0.0)
    if not (abs(rm - om) <= tol_mean and abs(rs - os_) <= tol_std):
        return False, (f"statistics differ: mean {om:.5g} vs {rm:.5g} (allowed {tol_mean:.3g}), std {os_:.5g} vs "
                       f"{rs:.5g} (allowed {tol_std:.3g})"), abs(rm - om)
    if len(more) >= 2:
        b, d = more[0], more[1]
        reason = _exchangeability(ref_flat, b, d, out_flat, device, chunk) or \
            agreement_gap(out_flat, ref_flat, b, d, atol, rtol, device) or \
            _distribution_gap(out_flat, d, atol, rtol, device) or lag_gap(out_flat, ref_flat, b, d, device)
        if reason:
            return False, reason, abs(rm - om)
    return True, "", abs(rm - om)


def _chunks(tensors, device, chunk: int):
    """Float64 chunks of ``tensors`` (same length) on ``device``, with the mask of positions finite in all."""
    import torch

    n = tensors[0].numel()
    for start in range(0, n, chunk):
        parts = [t[start:start + chunk].to(device=device, dtype=torch.float64) for t in tensors]
        finite = parts[0].isfinite()
        for p in parts[1:]:
            finite &= p.isfinite()
        yield [p[finite] for p in parts]


def _nonfinite_counts(flat, device, chunk: int) -> tuple[int, int, int]:
    import torch

    nan = pos = neg = 0
    for start in range(0, flat.numel(), chunk):
        part = flat[start:start + chunk].to(device=device)
        if not part.is_floating_point():
            return 0, 0, 0
        nan += int(torch.isnan(part).sum())
        pos += int(torch.isposinf(part).sum())
        neg += int(torch.isneginf(part).sum())
    return nan, pos, neg


def _moments(tensors, device, chunk: int) -> list[tuple[float, float, int, float]]:
    """Mean, sample standard deviation, count and fourth central moment of each tensor over the positions finite in
    all (two passes)."""
    n, sums = 0, [0.0] * len(tensors)
    for parts in _chunks(tensors, device, chunk):
        n += parts[0].numel()
        sums = [s + float(p.sum()) for s, p in zip(sums, parts)]
    if n == 0:
        return [(math.nan, 0.0, 0, 0.0)] * len(tensors)
    means = [s / n for s in sums]
    squares, fourths = [0.0] * len(tensors), [0.0] * len(tensors)
    for parts in _chunks(tensors, device, chunk):
        centred = [(p - m) ** 2 for p, m in zip(parts, means)]
        squares = [q + float(c.sum()) for q, c in zip(squares, centred)]
        fourths = [f + float((c * c).sum()) for f, c in zip(fourths, centred)]
    return [(m, (q / (n - 1)) ** 0.5 if n > 1 else 0.0, n, f / n) for m, q, f in zip(means, squares, fourths)]


class _MeanDifference:
    """Running sums for the mean of per-element differences ``x - y`` (candidate's statistic minus the fresh
    draw's) and for the effective number of elements of ``y`` (the reference's own statistic)."""

    def __init__(self):
        self.n = 0
        self.total = self.squares = self.y2 = self.y4 = 0.0

    def add(self, x, y) -> None:
        diff = x - y
        self.n += diff.numel()
        self.total += float(diff.sum())
        self.squares += float((diff * diff).sum())
        y2 = y * y
        self.y2 += float(y2.sum())
        self.y4 += float((y2 * y2).sum())

    def z(self) -> float | None:
        """The mean difference in standard errors; ``None`` when too few elements carry the statistic."""
        if self.n < 3 or self.y4 <= 0 or self.y2 * self.y2 / self.y4 < MIN_EFFECTIVE_ELEMENTS:
            return None
        mean = self.total / self.n
        stderr = math.sqrt(max(self.squares / self.n - mean * mean, 0.0) / self.n)
        return mean / stderr if stderr > 0 else (0.0 if mean == 0 else math.copysign(math.inf, mean))


def _exchangeability(a_flat, b_flat, d_flat, c_flat, device, chunk: int) -> str | None:
    """The failure message when the candidate ``c`` is told apart from the fresh reference draw ``d`` by how it
    follows the input (module docstring, item 3), else ``None``."""
    tensors = [a_flat, b_flat, d_flat, c_flat]
    moments = _moments(tensors, device, chunk)
    if moments[0][2] < 3 or any(not s > 0 for _, s, _, _ in moments):
        return None
    follows, spread = _MeanDifference(), _MeanDifference()
    for parts in _chunks(tensors, device, chunk):
        za, zb, zd, zc = ((p - m) / s for p, (m, s, _, _) in zip(parts, moments))
        pair = (za + zb) / 2
        follows.add(zc * pair, zd * pair)
        gap = (zb - za).abs()
        spread.add((zc - za).abs() * gap, (zd - za).abs() * gap)
    z = follows.z()
    if z is not None and abs(z) > DEPENDENCE_Z:
        how = "less than a fresh draw of the reference does (does it read its input?)" if z < 0 else \
            "more than a fresh draw of the reference does (is it random?)"
        return f"the output follows its input {how}: {abs(z):.1f} standard errors (allowed {DEPENDENCE_Z:g})"
    z = spread.z()
    if z is not None and abs(z) > DEPENDENCE_Z:
        return (f"the output's randomness does not scale with its input as a fresh draw of the reference's does: "
                f"{abs(z):.1f} standard errors (allowed {DEPENDENCE_Z:g})")
    return None


def agreement_gap(c_flat, a_flat, b_flat, d_flat, atol: float, rtol: float, device) -> str | None:
    """The failure message when the candidate ``c`` does not agree with the reference's draws element by element as
    often as a fresh draw ``d`` does, where the law has an atom (module docstring, item 8), else ``None``.

    Where two draws of the reference agree within tolerance (``|a - b| <= atol + rtol * |a|``), the law given the
    inputs has an atom there that both hit: a dropout's kept value ``x / (1 - p)``, a grid point, a Bernoulli's 0
    or 1. An honest ``c`` and the fresh draw ``d`` are two independent draws of that law, independent of ``a`` and
    ``b``, so at those elements ``[|c - a| <= tol]`` and ``[|d - a| <= tol]`` have the same mean; the candidate's
    share is tested against the fresh draw's, two-sided at :data:`DEPENDENCE_Z` standard errors, where at least
    :data:`MIN_EFFECTIVE_ELEMENTS` elements of ``d`` agree (decided by the reference's draws alone; a continuous law
    has no atoms, and the test is skipped). Every other test reads standardised values or the distribution of
    values, which a scale or a rounding of the atoms keeps: a dropout whose kept values were rounded to bfloat16
    (0.4% off each, no bias) or scaled 1% off passed X/44 end to end (a red-team finding, round 34)."""
    import torch

    from kernelgym.judge.correctness import CHUNK

    agree = _MeanDifference()
    for parts in _chunks([a_flat, b_flat, d_flat, c_flat], device, max(CHUNK // 8, 1)):
        a, b, d, c = parts
        tol = atol + rtol * a.abs()
        atom = (a - b).abs() <= tol
        agree.add(((c - a).abs() <= tol)[atom].to(torch.float64), ((d - a).abs() <= tol)[atom].to(torch.float64))
    z = agree.z()
    if z is None or abs(z) <= DEPENDENCE_Z:
        return None
    how = "less" if z < 0 else "more"
    return (f"where two draws of the reference agree (a value the law takes with some probability, such as a "
            f"dropout's kept value), the output agrees with them {how} often than a fresh draw of the reference does "
            f"({abs(z):.1f} standard errors, allowed {DEPENDENCE_Z:g}): the values it takes must be the reference's, "
            f"each within tolerance")


def repeat_gap(first_flat, again_flat, a_flat, b_flat, device) -> str | None:
    """The failure message when a candidate's two outputs on the same inputs do not differ as two draws of the
    reference on them do (module docstring, item 5), else ``None``: per element, ``(c1 - c2)**2`` against
    ``(a - b)**2`` on standardised values, two-sided at :data:`DEPENDENCE_Z` standard errors. Identical outputs (the
    same seed on every call) and a fixed pattern (no generator at all) give 0."""
    from kernelgym.judge.correctness import CHUNK

    chunk = max(CHUNK // 8, 1)
    tensors = [a_flat, b_flat, first_flat, again_flat]
    moments = _moments(tensors, device, chunk)
    if moments[0][2] < 3 or not (moments[0][1] > 0 and moments[1][1] > 0):
        return None
    repeat = _MeanDifference()
    for parts in _chunks(tensors, device, chunk):
        za, zb, z1, z2 = ((p - m) / (s if s > 0 else 1.0) for p, (m, s, _, _) in zip(parts, moments))
        repeat.add((z1 - z2) ** 2, (za - zb) ** 2)
    z = repeat.z()
    if z is not None and abs(z) > DEPENDENCE_Z:
        how = "less" if z < 0 else "more"
        return (f"called twice on the same inputs, the output changed {how} than two draws of the reference do "
                f"({abs(z):.1f} standard errors, allowed {DEPENDENCE_Z:g}): each call must draw fresh randomness")
    return None


def joint_gap(outs, fresh, device) -> str | None:
    """The failure message when two outputs of the candidate's call are not drawn together as the reference's are
    (module docstring, item 6), else ``None``: for each pair of floating outputs with as many elements, the
    per-element product of their standardised values against the same product in a fresh reference draw
    (``fresh``: that draw's outputs), two-sided at :data:`DEPENDENCE_Z` standard errors."""
    from kernelgym.judge.correctness import CHUNK

    chunk = max(CHUNK // 8, 1)
    flat = [(o.reshape(-1), f.reshape(-1)) for o, f in zip(outs, fresh)
            if hasattr(o, "is_floating_point") and hasattr(f, "is_floating_point") and o.is_floating_point()]
    for i in range(len(flat)):
        for j in range(i + 1, len(flat)):
            (ci, di), (cj, dj) = flat[i], flat[j]
            if ci.numel() != cj.numel() or di.numel() != ci.numel() or dj.numel() != ci.numel():
                continue
            tensors = [ci, cj, di, dj]
            moments = _moments(tensors, device, chunk)
            if moments[0][2] < 3 or any(not s > 0 for _, s, _, _ in moments):
                continue
            together = _MeanDifference()
            for parts in _chunks(tensors, device, chunk):
                zci, zcj, zdi, zdj = ((p - m) / s for p, (m, s, _, _) in zip(parts, moments))
                together.add(zci * zcj, zdi * zdj)
            z = together.z()
            if z is not None and abs(z) > DEPENDENCE_Z:
                return (f"outputs {i} and {j} are not drawn together as the reference's are ({abs(z):.1f} standard "
                        f"errors, allowed {DEPENDENCE_Z:g}): one call must draw them from one sample")
    return None


def lag_gap(c_flat, a_flat, b_flat, d_flat, device) -> str | None:
    """The failure message when the candidate's ``c`` is not drawn independently from element to element (module
    docstring, item 7), else ``None``.

    Given the inputs, an honest ``c`` and the reference's draws ``a``, ``b``, ``d`` are independent draws of one law
    per element, and each independent across elements; so the residual ``e = c - (a + b) / 2`` has mean zero and
    ``S(L) = sum_i e_i e_(i+L)`` is a sum of uncorrelated terms of mean zero at every lag ``L >= 1``, whose variance
    ``sum_i E[e_i**2] E[e_(i+L)**2]`` the fresh draw's residual ``d - (a + b) / 2`` estimates without the
    candidate (its ``sum_i e_i**2 e_(i+L)**2``). Noise reused at some lag (16 neighbours sharing one draw, a period,
    rows sharing their noise) gives ``S(L)`` of the order of the window's size instead of its square root. All lags
    of the window at once, by FFT, and those between it and a second window elsewhere (:data:`LAG_WINDOW` apart or
    more, where the output is that long); a lag whose terms a few extreme elements carry (the outlier trials)
    is skipped (:data:`MIN_EFFECTIVE_ELEMENTS`), and the whole test where the fresh draw's own residual stands out
    by half :data:`LAG_Z` at some lag (a law that draws elements together, dropping a whole row, whose elements are
    not independent), both decided by the reference's draws only.

    Since the ``S(L)`` are uncorrelated with each other, their sum over a band of lags (``[2**k, 2**(k+1))``) has
    the sum of their variances: noise reused at lags spread over a band (each block of 1024 elements drawing 64
    numbers and each element taking one at a hashed position: 16 times fewer draws, a few pairs at each lag) stands
    out there though no single lag does (:data:`BAND_Z`; a red-team finding, 2026-12-07)."""
    found = _lag_statistics(c_flat, a_flat, b_flat, d_flat, device)
    if found is None:
        return None
    if found["lag"] is not None and abs(found["lag"][1]) > LAG_Z:
        lag, z = found["lag"]
        return (f"the output's randomness is not drawn independently for each element: its deviations from the "
                f"reference's mean are correlated {lag} element(s) apart ({abs(z):.1f} standard errors, allowed "
                f"{LAG_Z:g} at any lag): draw fresh random numbers for every element")
    if found["band"] is not None and abs(found["band"][2]) > BAND_Z:
        low, high, z = found["band"]
        return (f"the output's randomness is not drawn independently for each element: its deviations from the "
                f"reference's mean are correlated between elements {low} to {high} apart ({abs(z):.1f} standard "
                f"errors over those lags together, allowed {BAND_Z:g}): draw fresh random numbers for every element")
    return None


def largest_lag_z(c_flat, a_flat, b_flat, d_flat, device) -> tuple[int, float] | None:
    """:func:`lag_gap`'s statistic: the lag whose autocorrelation stands out most, and by how many standard errors
    (signed); ``None`` where no lag can be tested (too few elements, or too few carrying the statistic, or a law
    whose reference draws are correlated themselves)."""
    found = _lag_statistics(c_flat, a_flat, b_flat, d_flat, device)
    return None if found is None else found["lag"]


def largest_band_z(c_flat, a_flat, b_flat, d_flat, device) -> tuple[int, int, float] | None:
    """:func:`lag_gap`'s statistic over bands of lags: ``(lowest lag, highest lag, z)`` of the band whose summed
    autocorrelation stands out most; ``None`` where no band can be tested."""
    found = _lag_statistics(c_flat, a_flat, b_flat, d_flat, device)
    return None if found is None else found["band"]


def _lag_statistics(c_flat, a_flat, b_flat, d_flat, device) -> dict | None:
    import torch

    n = c_flat.numel()
    w = min(n, LAG_WINDOW)
    if w < 4 * MIN_EFFECTIVE_ELEMENTS or a_flat.numel() != n or b_flat.numel() != n or d_flat.numel() != n:
        return None

    def residuals(start, spread=False):
        c, a, b, d = (t[start:start + w].to(device=device, dtype=torch.float64)
                      for t in (c_flat, a_flat, b_flat, d_flat))
        finite = c.isfinite() & a.isfinite() & b.isfinite() & d.isfinite()
        centre = (a + b) / 2
        zero = torch.zeros((), dtype=torch.float64, device=c.device)
        e_c, e_d = torch.where(finite, c - centre, zero), torch.where(finite, d - centre, zero)
        if not spread:
            return e_c, e_d
        # the squared residuals' excess over the fresh draw's (mean zero for an honest c, independent from element
        # to element), and the same of the reference's draws alone: 3/4 (a - b)**2 has e_d**2's mean
        half = torch.where(finite, a - b, zero)
        return e_c * e_c - e_d * e_d, 0.75 * half * half - e_d * e_d

    size = 1 << (2 * w - 1).bit_length()  # zero-padded past 2w: no lag wraps around

    def correlation(x, y=None):
        """``sum_i x_i y_(i+k)`` for every ``k`` in ``1 - w .. w - 1`` (index ``k + w - 1``)."""
        fx = torch.fft.rfft(x, n=size)
        fy = fx if y is None else torch.fft.rfft(y, n=size)
        full = torch.fft.irfft(fx.conj() * fy, n=size)
        return torch.cat([full[size - w + 1:], full[:w]])

    start = secrets.randbelow(n - w + 1)
    e_c, e_d = residuals(start)
    # the window with itself: lags 1 .. w - 1 (all of them: reuse at a lag beyond half the window, a persistent
    # kernel's noise reused by its next sweep, went untested)
    parts = [(e_c, e_d, e_c, e_d, 1, torch.arange(1, w, device=e_c.device), True)]
    if n >= 2 * w:  # and with a second window elsewhere, not overlapping: lags beyond the window, where the output
        # is that long (noise with a period above the window, reused by every sweep of a persistent kernel)
        while True:
            other = secrets.randbelow(n - w + 1)
            if abs(other - start) >= w:
                break
        f_c, f_d = residuals(other)
        parts.append((e_c, e_d, f_c, f_d, 1 - w, other - start + torch.arange(1 - w, w, device=e_c.device), False))
    out = {"lag": None, "band": None}
    for x_c, x_d, y_c, y_d, first, lags, own in parts:
        pick = slice(first + w - 1, None)
        s = correlation(x_c, y_c)[pick]
        v = correlation(x_d * x_d, y_d * y_d)[pick]
        v4 = correlation(x_d ** 4, y_d ** 4)[pick]
        ref = correlation(x_d, y_d)[pick]
        scale = float((x_d * x_d).sum()) * float((y_d * y_d).sum())  # the FFT's rounding is ~1e-16 of this
        valid = (v > 1e-12 * scale) & (v4 > 0) & (v * v >= MIN_EFFECTIVE_ELEMENTS * v4)
        if not bool(valid.any()):
            continue
        root = v.clamp_min(1e-300).sqrt()
        nothing = torch.zeros((), dtype=torch.float64, device=s.device)
        # a law that draws elements together (one number per row, a channel dropped whole) has a reference whose
        # own residual is not independent from element to element: the statistic's errors assume it is, so such a
        # law is not tested (decided by the reference's draws alone)
        if float(torch.where(valid, ref / root, nothing).abs().max()) > LAG_Z / 2:
            if own:
                return None  # nor the bands: one band's reference sum is too few to tell such a law
            continue
        z = torch.where(valid, s / root, nothing)
        at = int(torch.argmax(z.abs()).item())
        if out["lag"] is None or abs(float(z[at])) > abs(out["lag"][1]):
            out["lag"] = (int(lags[at]), float(z[at].item()))
        if own:
            out["band"] = _largest_band(s, v, v4, ref, valid)
    # the squared residuals too (self-normalised): noise reused with a sign drawn per element (+g here, -g there)
    # correlates its elements' residuals both ways, summing to nothing over a band, but their squares one way
    q_c, q_r = residuals(start, spread=True)
    s, v = correlation(q_c)[w:], correlation(q_c * q_c)[w:]
    v4 = correlation(q_c ** 4)[w:]
    ref, v_r = correlation(q_r)[w:], correlation(q_r * q_r)[w:]
    scale = float((q_c * q_c).sum()) ** 2
    valid = (v > 1e-12 * scale) & (v4 > 0) & (v * v >= MIN_EFFECTIVE_ELEMENTS * v4) & (v_r > 1e-12 * scale)
    nothing = torch.zeros((), dtype=torch.float64, device=s.device)
    if bool(valid.any()) and float(torch.where(valid, ref / v_r.clamp_min(1e-300).sqrt(), nothing).abs().max()) \
            <= LAG_Z / 2:  # the reference's own squares not correlated at any lag (its draws alone decide)
        spread = _largest_band(s, v, v4, ref, valid, v_r)
        if spread is not None and (out["band"] is None or abs(spread[2]) > abs(out["band"][2])):
            out["band"] = spread
    return out if out["lag"] is not None or out["band"] is not None else None


def _largest_band(s, v, v4, ref, valid, v_ref=None) -> tuple[int, int, float] | None:
    """The band of lags ``[2**k, 2**(k+1))`` (lag ``L`` at index ``L - 1``) whose summed autocorrelation stands out
    most (:func:`lag_gap`), among those whose terms enough elements carry and where the fresh draw's own residual
    does not stand out by half :data:`BAND_Z` (a law drawing elements together); ``None`` where none is tested."""
    best = None
    w = s.numel() + 1
    k = 0
    while (1 << k) < w:
        low, high = 1 << k, min(1 << (k + 1), w) - 1
        k += 1
        keep = valid[low - 1:high]
        if not bool(keep.any()):
            continue
        total_v = float(v[low - 1:high][keep].sum())
        total_v4 = float(v4[low - 1:high][keep].sum())
        if total_v <= 0 or total_v * total_v < MIN_EFFECTIVE_ELEMENTS * total_v4:
            continue
        root = math.sqrt(total_v)
        ref_root = root if v_ref is None else math.sqrt(max(float(v_ref[low - 1:high][keep].sum()), 1e-300))
        if abs(float(ref[low - 1:high][keep].sum())) / ref_root > BAND_Z / 2:
            continue
        z = float(s[low - 1:high][keep].sum()) / root
        if best is None or abs(z) > abs(best[2]):
            best = (low, high, z)
    return best


def _distribution_gap(c_flat, d_flat, atol: float, rtol: float, device) -> str | None:
    """The failure message when the values of ``c`` and of the fresh draw ``d`` are not distributed alike (module
    docstring, item 4), else ``None``."""
    import torch

    n = c_flat.numel()
    stride = max(1, n // KS_SAMPLE)
    offset = secrets.randbelow(stride)
    xs = c_flat[offset::stride].to(device=device, dtype=torch.float64)
    ys = d_flat[offset::stride].to(device=device, dtype=torch.float64)
    xs, ys = xs[xs.isfinite()], ys[ys.isfinite()]
    if xs.numel() < 2 or ys.numel() < 2:
        return None
    xs, ys = torch.sort(xs).values, torch.sort(ys).values
    points = torch.cat([xs, ys])
    slack = atol + rtol * points.abs()

    def cdf(sorted_values, at):
        return torch.searchsorted(sorted_values, at, right=True).to(torch.float64) / sorted_values.numel()

    gap = max(float((cdf(xs, points) - cdf(ys, points + slack)).max()),
              float((cdf(ys, points) - cdf(xs, points + slack)).max()))
    n_x, n_y = xs.numel(), ys.numel()
    bound = math.sqrt(-0.5 * math.log(KS_ALPHA / 2)) * math.sqrt((n_x + n_y) / (n_x * n_y))
    if gap > bound:
        return (f"the output's values are not distributed as the reference's: the cumulative distributions differ "
                f"by {gap:.3g} (allowed {bound:.2g}, each value given its tolerance)")
    return None
