"""KERNELGYM_RUNNER_SYNC on a real GPU: the runner's context takes the flag, and a thread waiting on the GPU burns a
core with ``spin`` and almost none with ``blocking``. Each mode in a fresh process. Skipped without CUDA."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import torch

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")]

PROBE = """
import json, time, torch
from kernelgym.judge import host_sync
from kernelgym.judge.runner import Judge
judge = Judge(device="cuda:0")
torch.zeros(1, device="cuda:0").sum().item()  # the context in use
torch.cuda._sleep(1_000_000_000)  # about half a second of GPU time
cpu, wall = time.thread_time(), time.monotonic()
torch.cuda.synchronize()
print(json.dumps({"set": judge.host_sync_flags, "now": host_sync.primary_flags(0)[0],
                  "cpu": time.thread_time() - cpu, "wall": time.monotonic() - wall}))
"""


def probe(mode: str) -> dict:
    env = {**os.environ, "KERNELGYM_RUNNER_SYNC": mode}
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_blocking_sync_sleeps_where_spin_burns_a_core():
    spin, blocking = probe("spin"), probe("blocking")
    assert spin["set"] & 7 == 1 and spin["now"] & 7 == 1, spin
    assert blocking["set"] & 7 == 4 and blocking["now"] & 7 == 4, blocking
    assert spin["wall"] > 0.2 and blocking["wall"] > 0.2, (spin, blocking)
    assert spin["cpu"] > 0.5 * spin["wall"], spin
    assert blocking["cpu"] < 0.1 * blocking["wall"], blocking
