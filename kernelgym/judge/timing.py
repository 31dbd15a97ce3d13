"""Timing a forward call the same way for the candidate (worker) and the eager baseline (runner).

Method on a GPU, for every timed call: fresh inputs, an L2 flush (a write over a buffer larger than the L2), a
device-wide synchronize, a start event, the call, a device-wide synchronize (so work on any other stream is
waited for), an end event. Warm-up calls come first. Calls repeat until the 95% confidence half-width of the
mean is at most ``rel_ci`` of the median, or ``budget_s`` seconds or ``max_runs`` runs are spent, never fewer than
``min_runs``. On the CPU the same loop runs with ``time.perf_counter`` and the figures are flagged as not
meaningful by the caller.

The functions used here are bound at import time, before any candidate code is loaded in the worker, so a
candidate that patches ``torch.cuda.Event`` or ``torch.cuda.synchronize`` afterwards does not change them.
"""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass
from typing import Callable

import torch

_perf_counter = time.perf_counter
_cuda_sync = torch.cuda.synchronize
_Event = torch.cuda.Event
_event_record = torch.cuda.Event.record
_event_elapsed = torch.cuda.Event.elapsed_time
_event_sync = torch.cuda.Event.synchronize
_no_grad = torch.no_grad


@dataclass(frozen=True)
class TimingConfig:
    warmup: int = 3
    min_runs: int = 5
    max_runs: int = 200
    budget_s: float = 5.0
    rel_ci: float = 0.01

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def summarize(times_ms: list[float]) -> dict:
    """Median, quartile spread and 95% CI half-width (of the mean, normal approximation) of a timing sample."""
    n = len(times_ms)
    if n == 0:
        return {"median_ms": None, "iqr_ms": None, "ci95_ms": None, "n": 0}
    med = statistics.median(times_ms)
    if n >= 4:
        q = statistics.quantiles(times_ms, n=4)
        iqr = q[2] - q[0]
    else:
        iqr = max(times_ms) - min(times_ms)
    ci = 1.96 * statistics.stdev(times_ms) / math.sqrt(n) if n > 1 else float("inf")
    return {"median_ms": med, "iqr_ms": iqr, "ci95_ms": ci, "n": n}


class L2Flusher:
    """Writes a buffer twice the L2 size before each timed call so no input or output stays cached."""

    def __init__(self, device: str, l2_bytes: int | None = None):
        self.buf = None
        if device.startswith("cuda"):
            if l2_bytes is None:
                props = torch.cuda.get_device_properties(torch.device(device))
                l2_bytes = int(getattr(props, "L2_cache_size", 50 * 2**20) or 50 * 2**20)
            self.buf = torch.empty(max(2 * l2_bytes // 4, 1), dtype=torch.float32, device=device)

    def __call__(self) -> None:
        if self.buf is not None:
            self.buf.fill_(1.0)


def time_calls(fn: Callable, make_args: Callable[[int], list], device: str, config: TimingConfig,
               flusher: L2Flusher | None = None) -> list[float]:
    """Run ``fn(*make_args(i))`` repeatedly as described in the module docstring; return per-call ms."""
    on_gpu = device.startswith("cuda")
    flusher = flusher or L2Flusher(device)
    times: list[float] = []
    with _no_grad():
        for i in range(config.warmup):
            fn(*make_args(-1 - i))
        if on_gpu:
            _cuda_sync()
        started = _perf_counter()
        for i in range(config.max_runs):
            args = make_args(i)
            flusher()
            if on_gpu:
                start, end = _Event(enable_timing=True), _Event(enable_timing=True)
                _cuda_sync()
                _event_record(start)
                fn(*args)
                _cuda_sync()
                _event_record(end)
                _event_sync(end)
                times.append(float(_event_elapsed(start, end)))
            else:
                t0 = _perf_counter()
                fn(*args)
                times.append((_perf_counter() - t0) * 1e3)
            del args
            if len(times) >= config.min_runs:
                s = summarize(times)
                if s["ci95_ms"] <= config.rel_ci * s["median_ms"] or _perf_counter() - started > config.budget_s:
                    break
    return times
