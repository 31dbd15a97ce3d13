"""Each worker sees the judge's GPU and no other GPU of the machine.

The timer synchronises the judge's GPU only: a forward that queued work on another GPU of the machine, and had it
write into an output through peer pointers, would finish that work after the timed interval. So a worker gets the
judge's GPU alone: in the sandbox only that GPU's device node (``/dev/nvidiaN``) is bound beside the driver's
shared nodes (``nvidiactl``, ``nvidia-uvm``, ...: :func:`kernelgym.judge.sandbox.nodes_for`), and
``CUDA_VISIBLE_DEVICES`` names it by UUID, so inside the worker it is ``cuda:0`` whatever its ordinal in the runner.

The GPU's node comes from the driver's ``/proc/driver/nvidia/gpus/*/information`` (its ``GPU UUID`` and ``Device
Minor``). Where either cannot be had (no driver files, a MIG instance, whose UUID names no GPU there), the worker
sees what the runner sees, by the runner's names (documented in docs/SECURITY.md).
"""

from __future__ import annotations

import glob
import os
from typing import NamedTuple

from kernelgym.judge.gpu_memory import canonical_uuid, device_uuid

#: the driver's per-GPU folders, each with an ``information`` file
DRIVER_GPUS = "/proc/driver/nvidia/gpus"


class WorkerGpu(NamedTuple):
    """The judge's GPU as its workers see it: ``device`` their name for it (``cuda:0``), ``visible`` what their
    ``CUDA_VISIBLE_DEVICES`` holds (``GPU-`` and its UUID), ``node`` its device node."""

    device: str
    visible: str
    node: str


def device_minor(uuid: str, driver_gpus: str = DRIVER_GPUS) -> int | None:
    """The ``Device Minor`` of the GPU whose ``GPU UUID`` is ``uuid`` (any spelling :func:`canonical_uuid`
    reads), from the driver's files under ``driver_gpus``; ``None`` when none matches or they cannot be read."""
    want = canonical_uuid(uuid)
    if want is None:
        return None
    for path in sorted(glob.glob(os.path.join(driver_gpus, "*", "information"))):
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                text = handle.read(1 << 16)
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
        fields = {key.strip(): value.strip() for key, value in fields.items()}
        if canonical_uuid(fields.get("GPU UUID", "")) == want and fields.get("Device Minor", "").isdigit():
            return int(fields["Device Minor"])
    return None


def worker_gpu(device: str, driver_gpus: str = DRIVER_GPUS) -> WorkerGpu | None:
    """How a worker sees the judge's ``device`` (a ``cuda[:i]`` string); ``None`` on the CPU, or where the GPU's
    UUID or device node cannot be had (the worker then sees every GPU the runner sees, by the runner's names)."""
    if not device.startswith("cuda"):
        return None
    uuid = canonical_uuid(device_uuid(device) or "")
    minor = device_minor(uuid, driver_gpus) if uuid is not None else None
    node = f"/dev/nvidia{minor}" if minor is not None else None
    if node is None or not os.path.exists(node):
        return None
    return WorkerGpu("cuda:0", f"GPU-{uuid}", node)
