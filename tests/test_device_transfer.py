"""The GPU output handover's plumbing on the CPU: the fd socket, its non-blocking runner end, and the fallback to
files when this process cannot make shareable device memory (kernelgym.judge.device_transfer)."""

from __future__ import annotations

import os
import socket

import pytest

from conftest import GOOD, candidate, worker_processes


def test_a_process_without_the_driver_cannot_make_device_buffers():
    from kernelgym.judge import device_transfer

    if device_transfer._CU is not None:
        pytest.skip("this machine has a CUDA driver")
    with pytest.raises(device_transfer.DeviceTransferUnavailable, match="libcuda"):
        device_transfer.DeviceBuffer(0, 1024)


def test_the_device_index_of_a_device_string():
    from kernelgym.judge.device_transfer import device_index

    assert [device_index(d) for d in ("cuda", "cuda:0", "cuda:3")] == [0, 0, 3]


def test_the_runners_end_of_the_fd_socket_never_blocks(tmp_path):
    """A worker that never reads its fd socket cannot stall the runner: sends fail instead of waiting."""
    from kernelgym.judge.launch import WorkerLauncher
    from kernelgym.judge.runner import worker_env

    launcher = WorkerLauncher(lambda scratch: worker_env(scratch, on_cpu=True), "unsafe", fd_socket=True)
    worker = launcher.take()
    try:
        assert worker.sock is not None and worker.sock.getblocking() is False
        fd = os.open(tmp_path / "f", os.O_CREAT | os.O_RDWR)
        with pytest.raises(BlockingIOError):
            for _ in range(100_000):
                socket.send_fds(worker.sock, [b"x" * 8], [fd])
        os.close(fd)
    finally:
        worker.discard()
    assert worker.sock.fileno() == -1  # discarding the worker closed the runner's end


@pytest.mark.parametrize("sandbox", ["bwrap", "unsafe"])
def test_outputs_fall_back_to_files_when_device_buffers_cannot_be_made(tmp_path, relu_task, sandbox):
    """With the handover asked for, a worker gets its fd socket (through the sandbox too); where this process
    cannot make device buffers the outputs travel as files and the verdicts are unchanged."""
    from kernelgym.judge import device_transfer, sandbox as sandbox_module
    from kernelgym.judge.runner import Judge

    if device_transfer._CU is not None:
        pytest.skip("this machine has a CUDA driver")
    if sandbox == "bwrap" and sandbox_module.probe() is not None:
        pytest.skip("no sandbox here")
    judge = Judge(device="cpu", cache_dir=tmp_path, sandbox=sandbox)
    judge.launcher.fd_socket = True  # a CPU judge never asks for it; the socket's plumbing is what is tested here
    before = device_transfer.HANDOVERS["file"]
    assert judge.evaluate(relu_task, GOOD).status == "ok"
    assert judge.evaluate(relu_task, candidate(expr="x")).status == "incorrect"
    assert device_transfer.HANDOVERS["file"] > before
    assert device_transfer.HANDOVERS["device"] == 0
    judge.close()
    assert worker_processes() == []


@pytest.mark.parametrize("value, on", [(None, True), ("1", True), ("0", False), ("off", False), ("false", False)])
def test_gpu_judges_hand_outputs_over_on_the_device_unless_turned_off(monkeypatch, value, on):
    from kernelgym.judge import device_transfer

    if value is None:
        monkeypatch.delenv(device_transfer.ENV, raising=False)
    else:
        monkeypatch.setenv(device_transfer.ENV, value)
    assert device_transfer.enabled() is on


def test_a_buffer_the_device_has_no_memory_for_is_tried_again_after_the_cache_is_released():
    """Out of device memory is a moment's state, not a lack of support: the runner gives back its allocator's cached
    memory and tries once more; when that fails too, ``None`` sends this one output through a file (and is counted),
    while a process that cannot make such memory at all still raises."""
    from kernelgym.judge import device_transfer as dt

    released, attempts = [], []

    def make_after(failures):
        def make(index, nbytes):
            attempts.append((index, nbytes))
            if len(attempts) <= failures:
                raise dt.DeviceOutOfMemory("cuMemCreate failed with CUDA_ERROR_OUT_OF_MEMORY")
            return ("buffer", index, nbytes)
        return make

    assert dt.lend_buffer(1, 4096, lambda: released.append(1), make_after(1)) == ("buffer", 1, 4096)
    assert released == [1] and len(attempts) == 2
    released.clear(), attempts.clear()
    before = dt.HANDOVERS["out_of_memory"]
    assert dt.lend_buffer(0, 4096, lambda: released.append(1), make_after(2)) is None
    assert released == [1] and len(attempts) == 2 and dt.HANDOVERS["out_of_memory"] == before + 1

    def unsupported(index, nbytes):
        raise dt.DeviceTransferUnavailable("no driver")

    with pytest.raises(dt.DeviceTransferUnavailable):
        dt.lend_buffer(0, 4096, lambda: released.append(1), unsupported)


def test_the_drivers_out_of_memory_code_is_told_apart_from_missing_support():
    from kernelgym.judge import device_transfer as dt

    with pytest.raises(dt.DeviceOutOfMemory, match="CUDA_ERROR_OUT_OF_MEMORY"):
        dt._check(2, "cuMemCreate")
    with pytest.raises(dt.DeviceTransferUnavailable, match="error 801"):
        dt._check(801, "cuMemCreate")
    dt._check(0, "cuMemCreate")


@pytest.mark.parametrize("failing", ["cuMemAddressReserve", "cuMemMap", "cuMemSetAccess"])
def test_a_buffer_whose_mapping_runs_out_of_memory_gives_its_memory_back(monkeypatch, failing):
    """Out of memory while mapping a buffer that was made (the state ``lend_buffer`` retries in) releases the
    allocation and the address range: a leaked buffer would stay outside every reservation for the runner's life.
    The driver here is a stand-in that records its calls; nothing else of the module is replaced."""
    from kernelgym.judge import device_transfer as dt

    calls = []

    class Driver:
        def __getattr__(self, name):
            def call(*args):
                calls.append(name)
                if name == "cuMemGetAllocationGranularity":
                    args[0]._obj.value = 2 << 20
                if name == "cuMemAddressReserve" and failing != name:
                    args[0]._obj.value = 1 << 40  # the reserved address
                return 2 if name == failing else 0  # 2: CUDA_ERROR_OUT_OF_MEMORY
            return call

    monkeypatch.setattr(dt, "_CU", Driver())
    with pytest.raises(dt.DeviceOutOfMemory):
        dt.DeviceBuffer(0, 4096)
    assert calls.count("cuMemCreate") == calls.count("cuMemRelease") == 1
    assert calls.count("cuMemAddressFree") == (0 if failing == "cuMemAddressReserve" else 1)
