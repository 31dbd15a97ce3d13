"""kernelgym.judge.streams off the GPU: the CPU path never touches CUDA (the GPU tests are in tests/gpu)."""

from __future__ import annotations

import torch

from kernelgym.judge import streams


def test_on_the_cpu_every_context_runs_its_block_and_touches_no_cuda_state():
    ran = []
    with streams.own("cpu"):
        with streams.default("cpu"):
            streams.settle("cpu")
            ran.append(torch.ones(3).sum().item())
    assert ran == [3.0]
    assert not torch.cuda.is_initialized()
