"""How much memory one forward of a task takes at its default shapes: the judge's GPU admission and the linter use it."""

from __future__ import annotations

import weakref
from typing import NamedTuple

from kernelgym.tasks import Task


class Footprint(NamedTuple):
    """One forward's memory at the default shapes: ``total`` bytes of the inputs, parameters and every operator
    output; ``outputs`` bytes of the forward's own outputs (those the judge keeps, copies and hands over); whether
    the forward could be ``traced`` (else ``total`` counts inputs and parameters only, ``outputs`` is 0); ``peak``
    bytes of the inputs, parameters and the most operator outputs alive at one moment of the forward (an operator's
    output counts from its creation until the forward drops its last reference; views and in-place results count as
    new bytes, so ``peak`` errs high), never above ``total``: what the forward holds, where ``total`` also counts
    the intermediates it has already freed."""

    total: int
    outputs: int
    traced: bool
    peak: int


def footprint(task: Task) -> Footprint:
    """The :class:`Footprint` of ``task`` (traced on the meta device)."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_flatten

    from kernelgym.judge.inputs import build_model, input_leaves, make_inputs

    def nbytes(values) -> int:
        return sum(v.numel() * v.element_size() for v in input_leaves(values) if torch.is_tensor(v))

    class CountOutputs(TorchDispatchMode):
        total = alive = most_alive = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            for value in tree_flatten(out)[0]:
                if torch.is_tensor(value):
                    size = nbytes([value])
                    self.total += size
                    self.alive += size
                    weakref.finalize(value, self.dropped, size)
            self.most_alive = max(self.most_alive, self.alive)
            return out

        def dropped(self, size: int) -> None:
            self.alive -= size

    module = task.load_module(small=False)
    model = build_model(module, module.Model, 0, "meta", task.dtype, task.mode)
    inputs = make_inputs(module, 0, "meta")
    state = list(model.parameters()) + list(model.buffers()) if isinstance(model, torch.nn.Module) else []
    base = nbytes(inputs) + nbytes(state)
    counter = CountOutputs()
    try:
        with torch.no_grad(), counter:
            out = model(*inputs)
    except (NotImplementedError, RuntimeError):
        return Footprint(base, 0, False, base)
    return Footprint(base + counter.total, nbytes(tree_flatten(out)[0]), True, base + counter.most_alive)


def footprint_bound(task: Task) -> tuple[int, bool]:
    """Bytes of the inputs, parameters and all operator outputs of one forward at the default shapes (traced on
    the meta device), and whether the forward could be traced (else: inputs and parameters only)."""
    total, _, traced, _ = footprint(task)
    return total, traced
