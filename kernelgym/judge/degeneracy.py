"""Whether a task's reference ignores its inputs (``degenerate_task``): KernelBench's L2/80 returns zeros for every
input, so a constant "kernel" is correct on it and wins any speedup.

The judge compares the candidate with the reference's outputs for several secret seeds in every evaluation (its
standard and outlier trials, the profiled forward, the checks of timed calls). :class:`DegeneracyWatch` calls the
task degenerate when **every** one of those outputs is bit-identical, over at least :data:`MIN_SEEDS` different
seeds: exactly when a kernel that writes one constant would pass every comparison. One repeat is not enough:

* a scalar output such as a mean loss over a large random input has only a few thousand likely values, so among a
  dozen seeds two can coincide for an honest task (KernelBench's L1/95 was flagged that way once on the H200);
* outliers can saturate an honest output (a clamp, a loss dominated by the outliers' magnitude), so that two
  outlier trials give the same bits while the standard trials differ.

An evaluation that stops early (an incorrect candidate fails its second trial) has seen only a few seeds, so the
flag needs :data:`MIN_SEEDS` of them: a chance match of two seeds' scalar outputs (about 1 in 3600 for L1/95) must
not flag a task, because reports leave out every task with a flagged result.
"""

from __future__ import annotations

#: distinct seeds whose outputs must all match before a task is called degenerate
MIN_SEEDS = 3

#: the flag's name and reason, as results carry them
FLAG = "degenerate_task"
REASON = ("the reference returned identical outputs for every input it was given: its output does not depend on "
          "them, so speedups on this task mean nothing (reports can exclude it)")


class DegeneracyWatch:
    """Fingerprints of the reference's outputs for one evaluation, fed one seed at a time.

    :meth:`note` returns what the evaluation says now: ``True`` when at least :data:`MIN_SEEDS` different seeds
    were seen and all their outputs had one fingerprint, ``False`` once any two differ (final: :attr:`settled`),
    ``None`` before that.
    """

    def __init__(self):
        self._first: bytes | None = None
        self._seeds: set[int] = set()
        self._differ = False

    @property
    def settled(self) -> bool:
        """Whether two outputs differed: nothing noted later changes the answer (no need to fingerprint more)."""
        return self._differ

    def note(self, fingerprint: bytes, seed: int) -> bool | None:
        if self._differ:
            return False
        if self._first is None:
            self._first = fingerprint
        elif fingerprint != self._first:
            self._differ = True
            return False
        self._seeds.add(int(seed))
        return True if len(self._seeds) >= MIN_SEEDS else None


def output_fingerprint(values: tuple) -> bytes:
    """A compact digest of outputs: shape, dtype, float64 sum, and up to 4096 evenly spaced
    elements of each tensor (bitwise, so NaN equals NaN; -0.0 counts as 0.0, since a kernel that writes 0.0 passes
    wherever the reference has -0.0). Equal outputs always give equal digests."""
    import hashlib

    import torch

    digest = hashlib.sha256()
    for value in values:
        if not torch.is_tensor(value):
            digest.update(repr(value).encode())
            continue
        flat = value.detach().reshape(-1)
        if flat.is_complex():
            flat = torch.view_as_real(flat).reshape(-1)
        sample = flat[::max(1, flat.numel() // 4096)][:4096]
        if sample.is_floating_point():
            sample = sample + 0.0  # -0.0 + 0.0 is 0.0
        total = flat.sum(dtype=torch.float64) if flat.numel() else torch.zeros((), dtype=torch.float64)
        digest.update(f"{tuple(value.shape)}{value.dtype}".encode())
        digest.update((total + 0.0).cpu().numpy().tobytes())
        digest.update(sample.to(torch.float64).cpu().numpy().tobytes())
    return digest.digest()
