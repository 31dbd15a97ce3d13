"""Comparing a random output with the reference's (``check = "statistical"``: the Random tasks), on the trusted side.

Two draws of a random operator on the same input never agree element by element, so a statistical comparison looks
at what they share. :func:`compare_statistics` checks, for one output:

1. **Non-finite values.** Where the reference has no NaN (or +Inf, or -Inf) the candidate may have none; where it
   has some, the counts agree within sampling noise. (Moments of a NaN are NaN, and a comparison with NaN is false:
   an all-NaN output, which is what poisoned or uninitialised memory holds, used to pass.)
2. **Moments.** Mean and standard deviation of the finite elements agree within ``atol + rtol * scale``, or within
   :data:`SAMPLING_Z` standard errors of two samples the reference's size where that is wider: a task's tolerance
   is a precision, and at small shapes (the CPU's) two honest draws differ by more than ``1e-4`` by chance alone.
3. **Dependence on the input** (when a second, independent draw of the reference on the same input is given). Two
   draws of the reference are correlated through their common input (Bernoulli samples of one ``p``, noise added to
   one ``x``); an honest candidate's draw is correlated with them exactly as much. An output that ignores its input
   (a fixed pattern, noise of the right moments alone) is not. With ``a``, ``b`` the two reference draws and ``c``
   the candidate's, standardised, the per-element quantity ``e = a*b - (a*c + b*c) / 2`` has mean 0 for an honest
   candidate and mean ``corr(a, b)`` for one independent of the input; the check fails when the mean of ``e``
   exceeds :data:`DEPENDENCE_Z` standard errors (estimated from ``e`` itself, so heavy tails widen it). One-sided:
   a candidate more correlated with the reference than a second draw (the same generator state, the expectation)
   is not an input-ignoring one. The check is skipped where a few extreme elements carry the reference draws' own
   correlation (:data:`MIN_EFFECTIVE_ELEMENTS`, a quantity of the reference alone).

Everything runs in float64 on the reference's device, an eighth of :data:`~kernelgym.judge.correctness.CHUNK`
elements at a time (up to eight float64 temporaries of a chunk are alive at once).
"""

from __future__ import annotations

import math

#: standard errors by which the candidate's correlation with the reference may fall short of a second draw's
#: (one-sided; at 6 an honest candidate fails about once in 10**9 comparisons under normality)
DEPENDENCE_Z = 6.0
#: standard errors (of a difference of two samples the reference's size) by which mean and standard deviation may
#: differ, where that is wider than the task's tolerance
SAMPLING_Z = 6.0
#: the dependence check needs the reference draws' correlation spread over at least this many elements
#: (``(sum x**2)**2 / sum x**4`` of ``x = a*b``, computed from the reference's draws only, so a candidate cannot
#: switch the check off); below it a few extreme values decide the correlation and its normal approximation fails
MIN_EFFECTIVE_ELEMENTS = 1000
#: standard deviations (Poisson) by which a count of NaN or infinite elements may differ from the reference's
COUNT_Z = 6.0


def compare_statistics(ref_flat, out_flat, atol: float, rtol: float, again_flat=None):
    """``(ok, reason, mean_abs_diff)`` for one flattened output (module docstring). ``again_flat``: a second
    independent draw of the reference on the same input, same shape, or ``None`` to skip the dependence check."""
    from kernelgym.judge.correctness import CHUNK

    chunk = max(CHUNK // 8, 1)  # up to eight float64 temporaries per chunk here: together near the comparison's 0.5 GB
    device = ref_flat.device
    draws = [ref_flat, out_flat] + ([again_flat] if again_flat is not None else [])
    counts = [_nonfinite_counts(x, device, chunk) for x in draws]
    for kind, ref_n, out_n, again_n in zip(("NaN", "+Inf", "-Inf"), counts[0], counts[1],
                                            counts[2] if again_flat is not None else counts[0]):
        allowed = 0.0 if ref_n == again_n == 0 else COUNT_Z * math.sqrt(max(ref_n, again_n, 1)) + abs(ref_n - again_n)
        if abs(out_n - ref_n) > allowed:
            return False, f"{out_n} {kind} element(s), the reference has {ref_n}", None
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
    if again_flat is not None:
        shortfall = _dependence_shortfall(ref_flat, again_flat, out_flat, device, chunk)
        if shortfall is not None:
            return False, shortfall, abs(rm - om)
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


def _dependence_shortfall(ref_flat, again_flat, out_flat, device, chunk: int) -> str | None:
    """The failure message when the candidate depends on the input less than a second reference draw does, else
    ``None`` (also when the reference shows no dependence to compare with: constant or too few elements)."""
    tensors = [ref_flat, again_flat, out_flat]
    moments = _moments(tensors, device, chunk)
    n = moments[0][2]
    if n < 3 or any(not s > 0 for _, s, _, _ in moments):
        return None
    (ma, sa, _, _), (mb, sb, _, _), (mc, sc, _, _) = moments
    total = squares = rr = rr_squares = rr_fourths = 0.0
    for a, b, c in _chunks(tensors, device, chunk):
        za, zb, zc = (a - ma) / sa, (b - mb) / sb, (c - mc) / sc
        e = za * zb - (za * zc + zb * zc) / 2
        total += float(e.sum())
        squares += float((e * e).sum())
        both = za * zb
        rr += float(both.sum())
        rr_squares += float((both * both).sum())
        rr_fourths += float((both ** 4).sum())
    if rr_fourths <= 0 or rr_squares * rr_squares / rr_fourths < MIN_EFFECTIVE_ELEMENTS:
        return None  # a few extreme elements carry the reference's own correlation: no normal approximation
    mean = total / n
    stderr = math.sqrt(max(squares / n - mean * mean, 0.0) / n)
    if mean > DEPENDENCE_Z * stderr:
        rho_rr = rr / n
        return (f"the output depends on the input less than the reference's draws do: its correlation with them is "
                f"{rho_rr - mean:.4g}, two draws of the reference have {rho_rr:.4g} (allowed shortfall "
                f"{DEPENDENCE_Z * stderr:.2g}); fresh randomness is not enough, each element must follow its input")
    return None
