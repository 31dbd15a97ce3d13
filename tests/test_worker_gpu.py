"""Each worker sees the judge's GPU alone (kernelgym.judge.gpu_isolation): its node found from the driver's files,
the other GPUs' nodes left out of the sandbox, CUDA_VISIBLE_DEVICES naming it, and outputs checked against the
worker's name for the device. On a GPU: tests/gpu/test_gpu_isolation.py."""

from __future__ import annotations

import pytest

from kernelgym.judge import sandbox
from kernelgym.judge.correctness import check_layout
from kernelgym.judge.gpu_isolation import device_minor, worker_gpu
from kernelgym.judge.runner import worker_env

UUID0 = "5f2c1a3b-0d4e-4f60-8a7b-9c0d1e2f3a4b"
UUID1 = "aa2c1a3b-0d4e-4f60-8a7b-9c0d1e2f3a4c"

#: a machine with two GPUs, as the driver lists them
NODES = ["/dev/dri/renderD128", "/dev/dri/renderD129", "/dev/nvidia-caps/nvidia-cap1", "/dev/nvidia-modeset",
         "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia0", "/dev/nvidia1", "/dev/nvidia10", "/dev/nvidiactl"]


def driver_files(root, gpus):
    for bus, (uuid, minor) in gpus.items():
        folder = root / bus
        folder.mkdir(parents=True)
        (folder / "information").write_text(f"Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t 42\nGPU UUID: \t GPU-{uuid}\n"
                                            f"Video BIOS: \t 96.00.99.00.01\nBus Type: \t PCIe\n"
                                            f"Bus Location: \t {bus}\nDevice Minor: \t {minor}\nGPU Excluded:\t No\n")
    return str(root)


def test_the_minor_of_a_gpu_is_read_from_the_drivers_files_by_its_uuid(tmp_path):
    root = driver_files(tmp_path / "gpus", {"0000:19:00.0": (UUID0, 3), "0000:3b:00.0": (UUID1, 10)})
    assert device_minor(UUID0, root) == 3
    assert device_minor(f"GPU-{UUID1.upper()}", root) == 10  # nvidia-smi's spelling, any case
    assert device_minor("00000000-0000-0000-0000-000000000000", root) is None  # no such GPU (e.g. a MIG instance)
    assert device_minor("not a uuid", root) is None
    assert device_minor(UUID0, str(tmp_path / "absent")) is None


def test_no_worker_gpu_on_the_cpu_or_without_the_drivers_files(tmp_path):
    assert worker_gpu("cpu") is None
    assert worker_gpu("cuda:0", str(tmp_path / "absent")) is None  # no UUID here (no GPU), no files either


def test_a_worker_gets_its_own_gpus_node_and_the_drivers_shared_nodes_only():
    mine = sandbox.nodes_for("/dev/nvidia1", NODES)
    assert sorted(mine) == ["/dev/nvidia-caps/nvidia-cap1", "/dev/nvidia-modeset", "/dev/nvidia-uvm",
                            "/dev/nvidia-uvm-tools", "/dev/nvidia1", "/dev/nvidiactl"]
    assert sandbox.nodes_for(None, NODES) == NODES  # not isolated: every node, as before


@pytest.mark.skipif(sandbox.bwrap_executable() is None, reason="needs bwrap")
def test_the_sandbox_binds_no_other_gpus_node(monkeypatch, tmp_path):
    monkeypatch.setattr(sandbox, "gpu_device_nodes", lambda: NODES)
    fd = sandbox.seccomp_fd()
    try:
        args = sandbox.command(["true"], tmp_path, [], fd, gpu_node="/dev/nvidia0")
        every = sandbox.command(["true"], tmp_path, [], fd)
    finally:
        import os

        os.close(fd)

    def bound(argv):
        return {argv[i + 1] for i, a in enumerate(argv) if a == "--dev-bind"}

    assert bound(args) == set(sandbox.nodes_for("/dev/nvidia0", NODES))
    assert "/dev/nvidia1" not in bound(args) and "/dev/nvidia10" not in bound(args)
    assert bound(every) == set(NODES)


def test_the_workers_cuda_sees_the_one_gpu_named(monkeypatch, tmp_path):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2,3")
    env = worker_env(tmp_path, on_cpu=False, warm_device="cuda:0", visible_gpu=f"GPU-{UUID1}")
    assert env["CUDA_VISIBLE_DEVICES"] == f"GPU-{UUID1}" and env["KERNELGYM_WARM_DEVICE"] == "cuda:0"
    assert worker_env(tmp_path, on_cpu=False, warm_device="cuda:2")["CUDA_VISIBLE_DEVICES"] == "2,3"  # not isolated


def test_outputs_are_checked_against_the_workers_name_for_the_device():
    import torch

    ref = torch.zeros(4, 4)  # stands for the reference's output on the runner's cuda:1
    desc = {"kind": "tensor", "shape": [4, 4], "strides": [4, 1], "contiguous": True, "lazy": False,
            "aliases_input": False}
    assert check_layout(ref, dict(desc, device="cuda:0"), 0, device="cuda:0") is None
    refused = check_layout(ref, dict(desc, device="cuda:1"), 0, device="cuda:0")  # another GPU than its own
    assert refused is not None and not refused.ok and "device of the inputs" in refused.reason
    assert check_layout(ref, dict(desc, device="cpu"), 0) is None  # default: the reference's device
