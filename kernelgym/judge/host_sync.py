"""How the runner's threads wait for its GPU: the scheduling flag of the process's primary CUDA context.

By default (``auto``) CUDA spins a waiting host thread while the process has fewer contexts than the machine has
cores: each of a pool's judge threads waiting on a comparison or a reference run then keeps a core busy, next to the
workers compiling their candidates on the same cores. ``KERNELGYM_RUNNER_SYNC`` picks the flag for the judges'
process: ``auto`` (CUDA's default), ``spin``, ``yield`` or ``blocking`` (the thread sleeps on an OS primitive until
the GPU is done: no core burnt, a wake-up's latency added to each wait). Only the runner's process is set; a
worker's context (the candidate's timing) is left as CUDA makes it. Unset, nothing is changed.

Not a default, and not for figures that are compared: the runner times the eager reference from a start event to
an end event recorded after a device-wide synchronize returns (docs/ARCHITECTURE.md, Timing), so under ``blocking``
the reference's calls also carry a sleeping thread's wake-up, while the candidate's worker still spins. That makes
eager slower and speedups larger by the wake-up's latency (a few to tens of microseconds a call: a bias for short
kernels). It is a switch for measuring what the spinning costs the host (``benchmarks/throughput.py
--cpu-profile``), before a design that sleeps outside timed calls only.
"""

from __future__ import annotations

import ctypes
import os

ENV = "KERNELGYM_RUNNER_SYNC"
#: CU_CTX_SCHED_* values of the driver API
MODES = {"auto": 0, "spin": 1, "yield": 2, "blocking": 4}
_SCHED_MASK = 0x7


def asked() -> str | None:
    """The mode ``KERNELGYM_RUNNER_SYNC`` asks for (``None`` when unset or empty); ``ValueError`` for another value."""
    value = os.environ.get(ENV, "").strip().lower()
    if not value:
        return None
    if value not in MODES:
        raise ValueError(f"{ENV}={value!r}: expected one of {', '.join(MODES)}")
    return value


def _device(ordinal: int):
    """The driver library, initialised, and device ``ordinal``'s handle (``OSError`` without a driver)."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError as exc:
        raise OSError(f"{ENV} needs the CUDA driver (libcuda.so.1): {exc}") from exc
    dev = ctypes.c_int()
    _check(cuda.cuInit(0), "cuInit")
    _check(cuda.cuDeviceGet(ctypes.byref(dev), ordinal), "cuDeviceGet")
    return cuda, dev


def _check(code: int, what: str) -> None:
    if code != 0:
        raise OSError(f"{what} failed with CUDA driver error {code}")


def _flags(cuda, dev) -> tuple[int, bool]:
    flags, active = ctypes.c_uint(), ctypes.c_int()
    _check(cuda.cuDevicePrimaryCtxGetState(dev, ctypes.byref(flags), ctypes.byref(active)),
           "cuDevicePrimaryCtxGetState")
    return flags.value, bool(active.value)


def primary_flags(ordinal: int) -> tuple[int, bool]:
    """The primary context's flags on device ``ordinal`` and whether it is active (``OSError`` without a driver)."""
    return _flags(*_device(ordinal))


def apply(mode: str, ordinal: int) -> int:
    """Set the scheduling flag ``mode`` (:data:`MODES`) on device ``ordinal``'s primary context, keeping its other
    flags; returns the flags read back. ``ValueError`` for an unknown mode, ``OSError`` where the driver refuses."""
    if mode not in MODES:
        raise ValueError(f"unknown host sync mode {mode!r}: expected one of {', '.join(MODES)}")
    cuda, dev = _device(ordinal)
    flags, _ = _flags(cuda, dev)
    setter = getattr(cuda, "cuDevicePrimaryCtxSetFlags_v2", None) or cuda.cuDevicePrimaryCtxSetFlags
    _check(setter(dev, (flags & ~_SCHED_MASK) | MODES[mode]), "cuDevicePrimaryCtxSetFlags")
    return _flags(cuda, dev)[0]


def apply_asked(device: str) -> int | None:
    """:func:`apply` the mode the environment asks for on ``device`` (``"cuda"`` or ``"cuda:N"``); ``None`` when
    nothing is asked or ``device`` is not a CUDA device."""
    mode = asked()
    if mode is None or not device.startswith("cuda"):
        return None
    ordinal = int(device.partition(":")[2] or 0)
    return apply(mode, ordinal)
