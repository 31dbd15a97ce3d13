"""The driver's account of GPU memory by process (kernelgym.judge.gpu_memory) on a real GPU. Skipped without CUDA."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
import torch

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")]

GIB = 1 << 30

#: a "worker" whose child, in a session of its own, holds 1 GiB on the GPU until stdin closes
HOLDER = """
import subprocess, sys
child = subprocess.Popen([sys.executable, '-c', '''
import sys, torch
x = torch.empty(1 << 30, dtype=torch.uint8, device="cuda:0")
torch.cuda.synchronize()
print("held", flush=True)
sys.stdin.read()
'''], start_new_session=True, stdin=subprocess.PIPE, stdout=sys.stdout)
sys.stdin.read()
child.stdin.close()
child.wait()
"""


def test_the_account_gives_a_childs_memory_to_its_worker_and_the_runners_to_the_runner():
    from kernelgym.judge import gpu_memory

    mine = torch.empty(512 << 20, dtype=torch.uint8, device="cuda:0")  # the runner's
    torch.cuda.synchronize()
    worker = subprocess.Popen([sys.executable, "-c", HOLDER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert worker.stdout.readline().strip() == "held"
        held = gpu_memory.memory_by_process("cuda:0")
        assert held is not None, "nvidia-smi could not be asked"
        listed = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,gpu_uuid", "--format=csv,noheader"],
                                capture_output=True, text=True, check=True).stdout
        print("\nLISTED", listed.strip().splitlines()[:8], "UUID", gpu_memory.device_uuid("cuda:0"))
        if not listed.strip():
            pytest.skip("the driver lists no process on this machine (another PID namespace): no account is taken")
        assert held, "processes are listed, none matched this device's UUID"
        account = gpu_memory.account("cuda:0", worker.pid, os.getpid())
        assert account is not None
        print("\nACCOUNT", account.describe())
        assert account.worker >= GIB  # the child in its own session is the worker's
        assert account.runner >= 512 << 20
        assert account.total > account.free > 0
    finally:
        worker.stdin.close()
        worker.wait(timeout=30)
        del mine
        time.sleep(0.1)
