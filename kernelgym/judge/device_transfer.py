"""Output tensors handed from the worker to the runner on the GPU, never through host memory (issue #13).

The file path (:mod:`kernelgym.judge.transfer`) copies every output device → host → file → host → device; for the
multi-GB outputs of full-size tasks that is most of the correctness stage. On a GPU the handover can stay on the
device, with the file path's guarantees:

1. The runner allocates exactly the output's size, computed from the *reference's* shape and dtype after the
   worker's description was checked against them (:class:`DeviceBuffer`). The allocation is CUDA virtual memory
   (``cuMemCreate``) exportable as a POSIX file descriptor: a memory object of its own, shared with nothing else of
   the runner (a tensor of torch's caching allocator would expose the whole cached segment around it).
2. The runner sends that descriptor over the worker's fd socket (``SCM_RIGHTS``; file descriptors cross the
   sandbox's namespaces, where legacy CUDA IPC handles, which name the exporting process, do not). The worker maps
   it and copies the output's bytes in (:func:`write_into`), synchronises, unmaps, and answers.
3. The runner stops the worker's processes (``SIGSTOP``), copies the buffer into memory of its own
   (:meth:`DeviceBuffer.take`), lets the worker go on and releases the buffer. Whatever the worker does to its
   mapping afterwards writes memory nobody else reads.

Nothing read is unpickled or executed; sizes never come from the candidate. On by default for GPU judges since it
was measured under load on the H200 (docs/BENCHMARKS.md, tenth session: 251 evaluations of KernelBench kernels,
8 at once, with multi-GB outputs); ``KERNELGYM_DEVICE_TRANSFER=0`` (or ``Judge(device_transfer=False)``) turns it
off. Where the runner cannot allocate such memory (no driver support, a CPU judge) the file path is used.

The CUDA driver API is called through :mod:`ctypes` (``libcuda.so.1``); the functions and structures are bound when
this module is imported, which in the worker is before any candidate code runs.
"""

from __future__ import annotations

import collections
import ctypes
import logging
import os
import socket
from typing import Any, Callable

from kernelgym.judge import streams
from kernelgym.judge.transfer import flat_bytes, tensor_from_raw

#: the environment switch that turns the device handover on
ENV = "KERNELGYM_DEVICE_TRANSFER"

#: output handovers of this (runner) process so far, by path: ``"device"`` or ``"file"``
HANDOVERS: collections.Counter = collections.Counter()
_warned: list[str] = []

_CU_MEM_ALLOCATION_TYPE_PINNED = 1
_CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 1
_CU_MEM_LOCATION_TYPE_DEVICE = 1
_CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3
_CU_MEM_ALLOC_GRANULARITY_MINIMUM = 0


class DeviceTransferUnavailable(RuntimeError):
    """This process cannot share device memory through file descriptors (no driver, no support)."""


class DeviceOutOfMemory(RuntimeError):
    """The driver had no device memory for a handover buffer of this size at this moment (``CUDA_ERROR_OUT_OF_MEMORY``):
    a state of the GPU, not a lack of support, so the device handover stays on for later outputs."""


class _Location(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class _AllocFlags(ctypes.Structure):
    _fields_ = [("compressionType", ctypes.c_ubyte), ("gpuDirectRDMACapable", ctypes.c_ubyte),
                ("usage", ctypes.c_ushort), ("reserved", ctypes.c_ubyte * 4)]


class _AllocationProp(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("requestedHandleTypes", ctypes.c_int), ("location", _Location),
                ("win32HandleMetaData", ctypes.c_void_p), ("allocFlags", _AllocFlags)]


class _AccessDesc(ctypes.Structure):
    _fields_ = [("location", _Location), ("flags", ctypes.c_int)]


def device_index(device: str) -> int:
    """The ordinal of a ``cuda[:i]`` device string (``cuda`` alone: 0)."""
    return int(device.split(":", 1)[1]) if ":" in device else 0


def unavailable(exc: Exception) -> None:
    """Note, once per process, that the device handover was asked for and this process cannot make its memory."""
    if not _warned:
        _warned.append(str(exc))
        logging.getLogger(__name__).warning("device output handover unavailable, using files: %s", exc)


def enabled() -> bool:
    """Whether GPU judges hand outputs over in device memory by default: yes unless ``KERNELGYM_DEVICE_TRANSFER``
    is ``0`` (or ``false``/``no``/``off``)."""
    return os.environ.get(ENV, "1").strip().lower() not in ("0", "false", "no", "off")


def available() -> bool:
    """Whether this process found the CUDA driver's virtual-memory API the handover needs (``libcuda.so.1``)."""
    return _CU is not None


def _load_driver():
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    u64, size = ctypes.c_uint64, ctypes.c_size_t
    signatures = {
        "cuInit": [ctypes.c_uint],
        "cuMemGetAllocationGranularity": [ctypes.POINTER(size), ctypes.POINTER(_AllocationProp), ctypes.c_int],
        "cuMemCreate": [ctypes.POINTER(u64), size, ctypes.POINTER(_AllocationProp), u64],
        "cuMemExportToShareableHandle": [ctypes.c_void_p, u64, ctypes.c_int, u64],
        "cuMemImportFromShareableHandle": [ctypes.POINTER(u64), ctypes.c_void_p, ctypes.c_int],
        "cuMemAddressReserve": [ctypes.POINTER(u64), size, size, u64, u64],
        "cuMemMap": [u64, size, size, u64, u64],
        "cuMemSetAccess": [u64, size, ctypes.POINTER(_AccessDesc), size],
        "cuMemUnmap": [u64, size],
        "cuMemAddressFree": [u64, size],
        "cuMemRelease": [u64],
    }
    for name, argtypes in signatures.items():
        fn = getattr(lib, name, None)
        if fn is None:
            return None
        fn.argtypes, fn.restype = argtypes, ctypes.c_int
    return lib


_CU = _load_driver()


_CUDA_ERROR_OUT_OF_MEMORY = 2


def _check(code: int, what: str) -> None:
    if code == _CUDA_ERROR_OUT_OF_MEMORY:
        raise DeviceOutOfMemory(f"{what} failed with CUDA_ERROR_OUT_OF_MEMORY")
    if code != 0:
        raise DeviceTransferUnavailable(f"{what} failed with CUDA driver error {code}")


def _driver():
    if _CU is None:
        raise DeviceTransferUnavailable("the CUDA driver library (libcuda.so.1) or its virtual-memory API is missing")
    _check(_CU.cuInit(0), "cuInit")
    return _CU


def _prop(device_index: int) -> _AllocationProp:
    prop = _AllocationProp()
    prop.type = _CU_MEM_ALLOCATION_TYPE_PINNED
    prop.requestedHandleTypes = _CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
    prop.location = _Location(_CU_MEM_LOCATION_TYPE_DEVICE, device_index)
    return prop


def _rounded(nbytes: int, device_index: int) -> int:
    """``nbytes`` rounded up to the allocation granularity (at least one granule)."""
    cu, gran = _driver(), ctypes.c_size_t()
    prop = _prop(device_index)
    _check(cu.cuMemGetAllocationGranularity(ctypes.byref(gran), ctypes.byref(prop), _CU_MEM_ALLOC_GRANULARITY_MINIMUM),
           "cuMemGetAllocationGranularity")
    g = max(int(gran.value), 1)
    return max(g, -(-nbytes // g) * g)


class _Mapping:
    """``size`` bytes of the allocation ``handle`` mapped read-write for ``device_index`` in this process."""

    def __init__(self, handle: int, size: int, device_index: int):
        cu = _driver()
        self.size, self.ptr = size, ctypes.c_uint64()
        _check(cu.cuMemAddressReserve(ctypes.byref(self.ptr), size, 0, 0, 0), "cuMemAddressReserve")
        try:
            _check(cu.cuMemMap(self.ptr.value, size, 0, handle, 0), "cuMemMap")
        except (DeviceTransferUnavailable, DeviceOutOfMemory):  # the memory made so far is given back either way
            cu.cuMemAddressFree(self.ptr.value, size)
            raise
        access = _AccessDesc(_Location(_CU_MEM_LOCATION_TYPE_DEVICE, device_index), _CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
        code = cu.cuMemSetAccess(self.ptr.value, size, ctypes.byref(access), 1)
        if code != 0:
            self.close()
            _check(code, "cuMemSetAccess")

    def bytes_view(self, nbytes: int, device_index: int):
        """The first ``nbytes`` of the mapping as a flat uint8 CUDA tensor (no copy; valid until :meth:`close`)."""

        class _Interface:
            __cuda_array_interface__ = {"shape": (nbytes,), "typestr": "|u1", "data": (self.ptr.value, False),
                                        "version": 3, "strides": None}

        return _T["as_tensor"](_Interface(), device=f"cuda:{device_index}")

    def close(self) -> None:
        if self.ptr.value:
            _CU.cuMemUnmap(self.ptr.value, self.size)
            _CU.cuMemAddressFree(self.ptr.value, self.size)
            self.ptr = ctypes.c_uint64()


class DeviceBuffer:
    """Device memory of exactly one output, made by the runner (trusted side) and lent to one worker.

    ``with DeviceBuffer(device_index, nbytes) as buf``: :meth:`send_fd` hands the worker a descriptor of it,
    :meth:`take` copies what the worker wrote into a tensor of the runner's own; leaving the block unmaps and
    releases it. Raises :class:`DeviceTransferUnavailable` when this process cannot make such memory, and
    :class:`DeviceOutOfMemory` when the device has no memory for it now (what was made is released first).
    """

    def __init__(self, device_index: int, nbytes: int):
        cu = _driver()
        self.device_index, self.nbytes = device_index, nbytes
        self.size = _rounded(nbytes, device_index)
        self.handle = ctypes.c_uint64()
        prop = _prop(device_index)
        _check(cu.cuMemCreate(ctypes.byref(self.handle), self.size, ctypes.byref(prop), 0), "cuMemCreate")
        try:
            self.mapping = _Mapping(self.handle.value, self.size, device_index)
        except (DeviceTransferUnavailable, DeviceOutOfMemory):  # the memory made so far is given back either way
            cu.cuMemRelease(self.handle.value)
            raise
        # zeroed before it is lent: physical memory the driver hands back to this process may hold what an earlier
        # buffer held (another candidate's outputs for the same seeds, in a batch), and a worker can read its buffer
        # before writing it. A memset at the GPU's bandwidth: about 2 ms for 6 GB
        self.mapping.bytes_view(self.size, device_index).zero_()
        # the evaluation's own stream only (judge/streams.py), not the other evaluations' queued work
        streams.settle(f"cuda:{device_index}")

    def send_fd(self, sock: socket.socket) -> None:
        """Export the allocation as a file descriptor and send it over ``sock`` (the descriptor is closed here
        once sent; the worker's copy keeps the memory object open on its side only)."""
        fd = ctypes.c_int(-1)
        _check(_CU.cuMemExportToShareableHandle(ctypes.byref(fd), self.handle.value,
                                                _CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
               "cuMemExportToShareableHandle")
        try:
            socket.send_fds(sock, [self.size.to_bytes(8, "little")], [fd.value])
        finally:
            os.close(fd.value)

    def take(self, desc: dict[str, Any]):
        """A tensor of ``desc``'s dtype and shape, in memory of the runner's own, holding what the buffer holds
        now; the caller has stopped the worker first."""
        import torch

        raw = self.mapping.bytes_view(self.nbytes, self.device_index)
        own = torch.empty(self.nbytes, dtype=torch.uint8, device=raw.device)
        own.copy_(raw)
        streams.settle(f"cuda:{self.device_index}")
        return tensor_from_raw(desc, own)

    def close(self) -> None:
        if self.handle.value:
            self.mapping.close()
            _CU.cuMemRelease(self.handle.value)
            self.handle = ctypes.c_uint64()

    def __enter__(self) -> "DeviceBuffer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def lend_buffer(device_index: int, nbytes: int, release_cached: Callable[[], None],
                make: Callable[[int, int], "DeviceBuffer"] = DeviceBuffer) -> "DeviceBuffer | None":
    """A handover buffer of ``nbytes`` (``make(device_index, nbytes)``), or ``None`` when the device has no memory
    for it even after ``release_cached()`` gave this process's cached but unused memory back to the driver.

    The runner's tensors come from torch's caching allocator, which keeps what an evaluation freed (a reference's
    outputs, the copies of a candidate's) for torch's own later use; ``cuMemCreate`` cannot use that memory. On the
    H200 a buffer for an 8.6 GB output failed this way with other evaluations running beside it, and the file path
    it fell back to turned that evaluation's correctness stage into 115 s. Raises
    :class:`DeviceTransferUnavailable` when this process cannot make such memory at all."""
    try:
        return make(device_index, nbytes)
    except DeviceOutOfMemory:
        release_cached()
    try:
        return make(device_index, nbytes)
    except DeviceOutOfMemory:
        HANDOVERS["out_of_memory"] += 1
        return None


def _bind_functions() -> dict:
    """What :func:`write_into` calls beyond :func:`~kernelgym.judge.transfer.flat_bytes`, bound at import (in the
    worker: before candidate code)."""
    import torch

    return {"copy_": torch.Tensor.copy_, "synchronize": torch.cuda.synchronize, "recv_fds": socket.recv_fds,
            "as_tensor": torch.as_tensor}


_T = _bind_functions()


def write_into(sock: socket.socket, tensor, device_index: int) -> int:
    """Worker side: receive the runner's buffer over ``sock``, copy ``tensor``'s bytes into it, synchronise, and
    unmap; returns the bytes written. Raises when the buffer is smaller than the tensor."""
    raw, nbytes = flat_bytes(tensor)
    data, fds, _, _ = _T["recv_fds"](sock, 8, 1)
    if len(fds) != 1 or len(data) != 8:
        for fd in fds:
            os.close(fd)
        raise ValueError("the runner's buffer did not arrive")
    size = int.from_bytes(data, "little")
    handle = ctypes.c_uint64()
    try:
        if size < nbytes:
            raise ValueError(f"the runner's buffer has {size} bytes, the output {nbytes}")
        _check(_driver().cuMemImportFromShareableHandle(ctypes.byref(handle), ctypes.c_void_p(fds[0]),
                                                        _CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
               "cuMemImportFromShareableHandle")
    finally:
        os.close(fds[0])
    mapping = None
    try:
        mapping = _Mapping(handle.value, size, device_index)
        if nbytes:
            _T["copy_"](mapping.bytes_view(nbytes, device_index), raw)
        _T["synchronize"]()
    finally:
        if mapping is not None:
            mapping.close()
        _CU.cuMemRelease(handle.value)
    return nbytes
