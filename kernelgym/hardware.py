"""HardwareSpec: the device a kernel will run on, as the policy sees it.

On a GPU: the detected name, SM count, memory, L2 size, clocks and compute capability, plus the vendor peak rates
from :data:`PEAKS` (dense, no sparsity; TFLOP/s and TB/s). Without a GPU: the CPU, marked as running Triton through
its interpreter. Peaks are datasheet leads; measured ceilings (copy bandwidth, matmul rate) can be attached with
:meth:`HardwareSpec.with_measured`.
"""

from __future__ import annotations

import json
import os
import platform
from dataclasses import asdict, dataclass, field, replace

#: Vendor peak rates (dense): memory bandwidth TB/s and TFLOP/s per precision.
PEAKS: dict[str, dict[str, float]] = {
    "H200": {"bandwidth_tbs": 4.8, "fp32": 67.0, "tf32": 494.7, "bf16": 989.4, "fp16": 989.4, "fp8": 1978.9,
             "int8": 1978.9},
    "H100": {"bandwidth_tbs": 3.35, "fp32": 67.0, "tf32": 494.7, "bf16": 989.4, "fp16": 989.4, "fp8": 1978.9,
             "int8": 1978.9},
    "A100": {"bandwidth_tbs": 2.04, "fp32": 19.5, "tf32": 156.0, "bf16": 312.0, "fp16": 312.0, "fp8": 0.0,
             "int8": 624.0},
    "L40S": {"bandwidth_tbs": 0.864, "fp32": 91.6, "tf32": 183.0, "bf16": 362.0, "fp16": 362.0, "fp8": 733.0,
             "int8": 733.0},
    "B200": {"bandwidth_tbs": 8.0, "fp32": 80.0, "tf32": 1100.0, "bf16": 2250.0, "fp16": 2250.0, "fp8": 4500.0,
             "int8": 4500.0},
}


def match_peaks(name: str) -> tuple[str | None, dict[str, float]]:
    """The peak table entry whose key appears in a device name (``"NVIDIA H200"`` → ``"H200"``)."""
    upper = name.upper()
    for key in sorted(PEAKS, key=len, reverse=True):
        if key in upper:
            return key, dict(PEAKS[key])
    return None, {}


@dataclass(frozen=True)
class HardwareSpec:
    kind: str                      # "gpu" or "cpu"
    name: str
    device: str                    # torch device string
    sm_count: int | None = None
    memory_gb: float | None = None
    l2_mb: float | None = None
    sm_clock_mhz: float | None = None
    compute_capability: str | None = None
    peak_key: str | None = None
    peaks: dict = field(default_factory=dict)
    measured: dict = field(default_factory=dict)
    note: str = ""

    def to_dict(self) -> dict:
        return asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    def with_measured(self, **figures: float) -> "HardwareSpec":
        return replace(self, measured={**self.measured, **figures})

    def ceiling(self, what: str) -> float | None:
        """Measured ceiling if known, else the vendor peak: ``"bandwidth_tbs"`` or a precision name."""
        return self.measured.get(what) or self.peaks.get(what) or None


class DeviceUnavailable(ValueError):
    """The device asked for does not exist on this machine (or is not one kernelgym runs on); the one-line message
    says what is available."""


def available_devices() -> list[str]:
    """The devices a judge can run on here: ``cpu``, then ``cuda:0`` ... ``cuda:N-1`` for each visible GPU."""
    import torch

    return ["cpu"] + [f"cuda:{i}" for i in range(torch.cuda.device_count() if torch.cuda.is_available() else 0)]


def require_device(device: str | None) -> str | None:
    """``device`` in canonical form (``"cpu"``, ``"cuda"``, ``"cuda:i"``) when it can be used here; ``None`` (the
    default device: GPU 0 if present, else the CPU) unchanged.

    Raises:
        DeviceUnavailable: a one-line message naming the device and what is available, e.g. ``device 'cuda' is
            not available: this torch (2.13.0+cpu) is built without CUDA; available: cpu``.
    """
    if device is None:
        return None
    import torch

    available = available_devices()
    have = f"available: {', '.join(available)}"
    try:
        dev = torch.device(str(device).strip().lower())
    except (RuntimeError, ValueError):
        raise DeviceUnavailable(f"unknown device {device!r}: use cpu or cuda[:i]; {have}") from None
    if dev.type == "cpu":
        return "cpu"
    if dev.type != "cuda":
        raise DeviceUnavailable(f"device {device!r} is not supported: kernelgym runs on cpu or cuda[:i]; {have}")
    if torch.version.cuda is None and torch.version.hip is None:
        raise DeviceUnavailable(f"device {device!r} is not available: this torch ({torch.__version__}) is built "
                                f"without CUDA; {have}")
    if len(available) == 1:
        raise DeviceUnavailable(f"device {device!r} is not available: no GPU is visible "
                                f"(CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES', 'unset')}); {have}")
    if dev.index is not None and f"cuda:{dev.index}" not in available:
        raise DeviceUnavailable(f"device {device!r} is not available: {len(available) - 1} GPU(s) visible; {have}")
    return "cuda" if dev.index is None else f"cuda:{dev.index}"


def require_gpus(needed: float, available: float, where: str = "the Ray cluster") -> None:
    """Raise :class:`DeviceUnavailable` when ``needed`` GPUs exceed the ``available`` ones (work placed there would
    wait forever)."""
    if needed > available:
        raise DeviceUnavailable(f"{needed:g} GPU(s) asked for but {where} has {available:g}; ask for at most "
                                f"{available:g} (or none: GPU-less actors run on the CPU)")


def detect(device: str | None = None) -> HardwareSpec:
    """Describe ``device`` (default: GPU 0 if there is one, else the CPU)."""
    import torch

    if device is None:
        device = "cuda:0" if torch.cuda.is_available() else "cpu"
    if device == "cpu":
        return HardwareSpec(kind="cpu", name=platform.processor() or platform.machine(), device="cpu",
                            sm_count=os.cpu_count(),
                            note="no GPU: Triton kernels run on the CPU through the Triton interpreter at small "
                                 "shapes; correctness is real, timings are not GPU figures")
    props = torch.cuda.get_device_properties(torch.device(device))
    key, peaks = match_peaks(props.name)
    clock = getattr(props, "clock_rate", None)
    return HardwareSpec(
        kind="gpu", name=props.name, device=device, sm_count=props.multi_processor_count,
        memory_gb=round(props.total_memory / 1e9, 1),
        l2_mb=round(getattr(props, "L2_cache_size", 0) / 2**20, 1) or None,
        sm_clock_mhz=(clock / 1000) if clock else None,
        compute_capability=f"{props.major}.{props.minor}", peak_key=key, peaks=peaks,
        note="" if key else "no peak-table entry for this GPU: IOU/MFU need measured ceilings")


def measure_ceilings(device: str = "cuda:0", size_mb: int = 2048, n: int = 8192, reps: int = 10) -> dict:
    """Measure this GPU's achievable ceilings: device-to-device copy bandwidth (TB/s, bytes read + written) and
    dense matmul rates (TFLOP/s) in bf16, fp16, tf32 and fp32 on random data. Takes a few seconds."""
    import torch

    dev = torch.device(device)
    out: dict[str, float] = {}

    def timed(fn) -> float:
        for _ in range(3):
            fn()
        torch.cuda.synchronize(dev)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(reps):
            fn()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) / reps / 1e3

    src = torch.empty(size_mb * 2**20 // 4, dtype=torch.float32, device=dev).uniform_()
    dst = torch.empty_like(src)
    out["bandwidth_tbs"] = 2 * src.numel() * 4 / timed(lambda: dst.copy_(src)) / 1e12
    del src, dst
    old_tf32 = torch.backends.cuda.matmul.allow_tf32
    try:
        for name, dtype, tf32, size in (("bf16", torch.bfloat16, False, n), ("fp16", torch.float16, False, n),
                                        ("tf32", torch.float32, True, n), ("fp32", torch.float32, False, n // 2)):
            torch.backends.cuda.matmul.allow_tf32 = tf32
            a = torch.randn(size, size, device=dev, dtype=dtype)
            b = torch.randn(size, size, device=dev, dtype=dtype)
            out[name] = 2 * size ** 3 / timed(lambda: torch.mm(a, b)) / 1e12
            del a, b
    finally:
        torch.backends.cuda.matmul.allow_tf32 = old_tf32
    torch.cuda.empty_cache()
    return {k: round(v, 3) for k, v in out.items()}


#: Which ceiling a task's dtype is measured against for MFU, unless the task names its own (:func:`precision_of`).
PRECISION_OF_DTYPE = {"float32": "tf32", "float16": "fp16", "bfloat16": "bf16", "int8": "int8", "float64": "fp32",
                      "int32": "fp32", "int64": "fp32"}
#: The precisions a task may name as its arithmetic's (``KERNELGYM["precision"]``): the rates of :data:`PEAKS`.
PRECISIONS = tuple(key for key in PEAKS["H200"] if key != "bandwidth_tbs")


def precision_of(dtype: str, declared: str | None = None) -> str:
    """The precision whose ceiling a task's FLOP rate is measured against: the one it declares, else its dtype's.

    A task's dtype names its inputs' and outputs' type, which need not be its arithmetic's: a W8A8 GEMM takes int8
    operands and returns float32 (H200, c27665c: an honest int8 ``tl.dot`` ran at 596 TFLOP/s, beyond TF32's peak
    of 495, and was rejected as physically impossible until the task named ``int8``)."""
    return declared or PRECISION_OF_DTYPE.get(dtype, "fp32")
