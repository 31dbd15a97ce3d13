"""A worker sees the judge's GPU alone (kernelgym.judge.gpu_isolation): one CUDA device, the judge's by UUID, and no
other GPU's device node. On a one-GPU machine this shows the isolated worker works (the honest kernel is `ok`) and
what it sees; the other GPUs' absence needs a machine with several. Skipped without CUDA."""

from __future__ import annotations

import re

import pytest
import torch

from conftest import GOOD, candidate
from kernelgym.judge.gpu_memory import canonical_uuid, device_uuid

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")]

#: a forward that reports what its worker sees of the machine's GPUs, then fails
REPORT = "\n        ".join([
    "import os as _os",
    "_nodes = sorted(n for n in _os.listdir('/dev') if n.startswith('nvidia'))",
    "raise RuntimeError(f\"SEEN count={torch.cuda.device_count()} visible={_os.environ.get('CUDA_VISIBLE_DEVICES')} \"",
    "                   f\"uuid={torch.cuda.get_device_properties(0).uuid} device={x.device} nodes={','.join(_nodes)}\")"])


@pytest.mark.parametrize("index", [torch.cuda.device_count() - 1] if torch.cuda.is_available() else [])
def test_a_worker_sees_the_judges_gpu_alone(tmp_path, relu_task, index):
    from kernelgym.judge.runner import Judge

    judge = Judge(device=f"cuda:{index}", cache_dir=tmp_path, static_checks=False)  # the report reads os
    try:
        assert judge.worker_gpu is not None, "no device node found for the judge's GPU (/proc/driver/nvidia/gpus)"
        assert judge.worker_device == "cuda:0"
        result = judge.evaluate(relu_task, candidate(pre=REPORT))
        seen = re.search(r"SEEN count=(\d+) visible=(\S+) uuid=(\S+) device=(\S+) nodes=(\S*)",
                         result.message + result.log_tail)
        assert seen is not None, (result.status, result.message, result.log_tail[-800:])
        print("\nSEEN", seen.group(0), "judge's node", judge.worker_gpu.node)
        count, visible, uuid, device, nodes = seen.groups()
        assert count == "1" and device == "cuda:0"
        assert canonical_uuid(visible) == canonical_uuid(uuid) == canonical_uuid(device_uuid(judge.device))
        per_gpu = [n for n in nodes.split(",") if re.fullmatch(r"nvidia\d+", n)]
        assert per_gpu == [judge.worker_gpu.node.rsplit("/", 1)[1]]
        honest = judge.evaluate(relu_task, GOOD)
        assert honest.status == "ok", honest.message + honest.log_tail[-800:]
    finally:
        judge.close()
