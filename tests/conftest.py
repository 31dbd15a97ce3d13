"""Shared fixtures: a small test task set and candidate programs built from one Triton template."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"

KERNEL_TEMPLATE = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl
{imports}

@triton.jit
def scaled_relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = {expr}
    tl.store(y_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        {pre}
        x = x.contiguous()
        y = torch.empty({out_shape}, device=x.device, dtype=x.dtype)
        n = x.numel()
        scaled_relu_kernel[(triton.cdiv(n, 256),)](x, y, n, BLOCK=256)
        return {ret}
'''


def candidate(expr="tl.maximum(x, 0.0) * 2.0 + 1.0", pre="pass", out_shape="x.shape", ret="y", imports=""):
    """A candidate program for the scaled-relu test task, with parts replaced to make it misbehave."""
    return KERNEL_TEMPLATE.format(expr=expr, pre=pre, out_shape=out_shape, ret=ret, imports=imports)


GOOD = candidate()


@pytest.fixture(scope="session")
def test_tasks():
    from kernelgym.tasks import load_tasks

    return load_tasks(DATA / "tasks")


@pytest.fixture(scope="session")
def relu_task(test_tasks):
    return test_tasks.get("L1/1_scaled_relu")


@pytest.fixture(scope="session")
def judge(tmp_path_factory):
    from kernelgym.judge.runner import Judge

    return Judge(device="cpu", cache_dir=tmp_path_factory.mktemp("cache"))


def worker_processes(owner: int | None = None) -> list[int]:
    """PIDs of live judge workers started by the process ``owner`` (default: this one) and their children."""
    owner = os.getpid() if owner is None else owner
    tag = f"KERNELGYM_RUNNER_PID={owner}".encode()
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                environ = f.read().split(b"\0")
            with open(f"/proc/{entry}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if tag in environ and state != "Z":
            pids.append(int(entry))
    return pids
