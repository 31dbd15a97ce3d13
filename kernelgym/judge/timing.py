"""Timing a forward call the same way for the candidate (worker) and the eager baseline (runner).

Method on a GPU, for every timed call: fresh inputs, an L2 flush (a write over a buffer larger than the L2), a
device-wide synchronize, a start event, the call, a device-wide synchronize (so work on any other stream is
waited for), an end event. Warm-up calls come first. Each block runs with a short GIL switch interval and no
cyclic garbage collection (:func:`quiet_for_timing`), so the thread that times gets the GIL back at once after
each wait and no collection pauses a call. Calls repeat until the median's 95% confidence half-width
(:func:`median_ci95`) is at most ``rel_ci`` of the median, or ``budget_s`` seconds or ``max_runs`` runs are spent,
never fewer than ``min_runs``.
The judge interleaves blocks of candidate calls with blocks of reference calls (:func:`alternate`).
On the CPU the same loop runs with ``time.perf_counter`` and the figures are flagged as not
meaningful by the caller.

In the worker, every tensor a timed call took or returned is scrubbed (:func:`scrub`) once its snapshot is taken:
the memory a candidate gets back from the allocator on its next call holds poison, never an earlier result.

The functions used here are bound at import time, before any candidate code is loaded in the worker, so a
candidate that patches ``torch.cuda.Event`` or ``torch.cuda.synchronize`` afterwards does not change them.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import math
import os
import statistics
import sys
import threading
import time
from dataclasses import dataclass
from typing import Callable, ContextManager

import torch

from kernelgym.judge.activity import ActivityRecorder as _ActivityRecorder
from kernelgym.judge.activity import merge as _merge_spans
from kernelgym.judge.inputs import as_tuple as _as_tuple
from kernelgym.judge.inputs import input_leaves as _input_leaves

_perf_counter = time.perf_counter
_cuda_sync = torch.cuda.synchronize
_Event = torch.cuda.Event
_event_record = torch.cuda.Event.record
_event_elapsed = torch.cuda.Event.elapsed_time
_event_sync = torch.cuda.Event.synchronize
_no_grad = torch.no_grad
_clone = torch.Tensor.clone
_is_tensor = torch.is_tensor
_type = type
_Tensor = torch.Tensor
#: depths of torch's function-mode and dispatch-mode stacks (a mode active while outputs are read runs its code)
MODE_DEPTHS = tuple(d for d in (getattr(torch._C, "_len_torch_function_stack", None),
                                getattr(torch._C, "_len_torch_dispatch_stack", None)) if d is not None)
_untyped_storage = torch.Tensor.untyped_storage
_stride, _is_contiguous, _is_neg, _is_conj = torch.Tensor.stride, torch.Tensor.is_contiguous, torch.Tensor.is_neg, \
    torch.Tensor.is_conj
_device_of, _str = torch.Tensor.device.__get__, str
_storage_fill = torch.UntypedStorage.fill_
_storage_ptr, _storage_nbytes = torch.UntypedStorage.data_ptr, torch.UntypedStorage.nbytes
_get_switch, _set_switch = sys.getswitchinterval, sys.setswitchinterval
_gc_enabled, _gc_disable, _gc_enable = gc.isenabled, gc.disable, gc.enable
_nullcontext = contextlib.nullcontext
_view, _reshape, _contiguous, _detach = torch.Tensor.view, torch.Tensor.reshape, torch.Tensor.contiguous, \
    torch.Tensor.detach
_uint8, _Generator, _gen_seed, _randint, _equal = torch.uint8, torch.Generator, torch.Generator.manual_seed, \
    torch.randint, torch.equal
_to, _cpu, _urandom, _arange = torch.Tensor.to, torch.Tensor.cpu, os.urandom, torch.arange
_numel, _index_select, _len = torch.Tensor.numel, torch.index_select, len
_sha256, _numpy, _hexdigest = hashlib.sha256, torch.Tensor.numpy, type(hashlib.sha256()).hexdigest

#: how a GPU call's time is taken: ``synchronized`` (the module docstring: from an idle GPU to a device-wide
#: synchronize, host latency at both ends included) or ``activity`` (the span of the device activities the call
#: launched, on any stream, recorded by CUPTI: :mod:`kernelgym.judge.activity`; a call with none recorded keeps its
#: synchronized figure). ``Judge(timing_method=...)``, by default ``KERNELGYM_TIMING_METHOD`` (read in the runner),
#: else ``synchronized``; the runner sends it to its workers.
TIMING_METHODS = ("synchronized", "activity")
TIMING_METHOD = os.environ.get("KERNELGYM_TIMING_METHOD", "synchronized")


def check_method(method: str) -> str:
    """``method`` if it is one of :data:`TIMING_METHODS`, else a ValueError naming them."""
    if method not in TIMING_METHODS:
        raise ValueError(f"unknown timing method {method!r} (KERNELGYM_TIMING_METHOD): use one of {TIMING_METHODS}")
    return method


#: the GIL switch interval while a block of calls is timed (seconds; Python's default is 0.005)
TIMED_SWITCH_INTERVAL_S = 1e-4
_switch_lock = threading.Lock()
_switch_state = {"timers": 0, "saved": 0.005, "collectors_off": 0, "gc": True}


@contextlib.contextmanager
def _switching(collector_off: bool):
    """The short switch interval while any such context is open in this process, and (``collector_off``) the
    cyclic garbage collector off while any that asked for it is; each restored when the last one closes."""
    with _switch_lock:
        if not _switch_state["timers"]:
            _switch_state["saved"] = _get_switch()
            _set_switch(TIMED_SWITCH_INTERVAL_S)
        _switch_state["timers"] += 1
        if collector_off:
            if not _switch_state["collectors_off"]:
                _switch_state["gc"] = _gc_enabled()
                _gc_disable()
            _switch_state["collectors_off"] += 1
    try:
        yield
    finally:
        with _switch_lock:
            _switch_state["timers"] -= 1
            if not _switch_state["timers"]:
                _set_switch(_switch_state["saved"])
            if collector_off:
                _switch_state["collectors_off"] -= 1
                if not _switch_state["collectors_off"] and _switch_state["gc"]:
                    _gc_enable()


def quiet_for_timing():
    """While any block is timed in this process: a thread that wants the GIL back gets it within
    :data:`TIMED_SWITCH_INTERVAL_S`, not Python's 5 ms, and the cyclic garbage collector does not run.

    A timed call waits for the GPU with the GIL released (``torch.cuda.synchronize``); when another thread of the
    process runs Python meanwhile (the runner's other evaluations: static checks, frames, ``/proc`` polls), taking
    the GIL back used to wait for that thread's whole switch interval, and the end event, recorded after the wait,
    counted it: on the CPU a 2 ms call beside one busy thread measured 7.4 ms, 2.4 ms with this
    (``benchmarks/gil_handoff.py``). A collection of a large heap (the runner's) is a pause of milliseconds at a
    random call. The previous interval and collector state come back when the last timed block ends."""
    return _switching(collector_off=True)


def prompt_gil():
    """The short switch interval of :func:`quiet_for_timing` without stopping the collector: for the runner's
    clock on a worker's block (:class:`kernelgym.judge.wallclock.BlockClock`), whose end is read when the thread
    waiting for the worker's answer gets the GIL back. Left at Python's 5 ms, the other evaluations' threads could
    add up to that to every block's wall time, which the bound on the candidate's time counts as the candidate's.
    (The collector stays on: these waits span most of a busy pool's time.)"""
    return _switching(collector_off=False)


#: the byte every scrubbed storage is filled with: NaN in every floating dtype (fp8 to fp64), -1 in every signed
#: integer dtype, a non-canonical ``True`` in bool
POISON_BYTE = 0xFF


#: how long (ms) a timed call's inputs may wait for their seed on the worker's command channel (the runner's ``seed``
#: line, sent once the call before is sealed: the runner's turnaround and the pipe, 0.015-0.16 ms on this repository's
#: CPU) before the wait counts as the call's own time (:attr:`CallTimer.seed_wait_ms`). A reader of the channel the
#: worker cannot see (a native thread of the candidate's, or a child process: no Python frame shows either) can take the
#: seed line first, do that call's work, and write the line back only then: the worker waits the while, outside the
#: call's timed interval (a red-team helper, round 44: ``ok`` at about half the honest GEMV's time on the CPU, the
#: runner's clock satisfied within its slack). Whoever holds the line, the worker's wait shows it.
SEED_WAIT_ALLOWANCE_MS = 0.5

#: bytes of each input tensor sampled after every timed call (:func:`sample_inputs`)
INPUT_SAMPLE_BYTES = 1 << 16


def sample_inputs(values, salt: int) -> tuple:
    """A sample of the bytes of every tensor in ``values``: :data:`INPUT_SAMPLE_BYTES` positions drawn from ``salt``
    (the same positions for the same salt, shapes and dtypes). Taken from a timed call's inputs before and after
    the call (both outside the timed interval), it shows a forward that wrote into its inputs (in trials every
    input is compared whole; a timed call's inputs are released before the judge picks which call to compare).
    ``salt``: the seed of the block's first call (``Worker.block``), so every call of a block is sampled at the same
    positions. The worker holds that seed, and the positions are kept at module level (:data:`_sample_positions`):
    a forward can read them and write into its inputs where they miss, unseen in a timed call (trials compare every
    input whole). Nothing was found to gain from that (round 42): a call's inputs are fresh, scrubbed whole after the
    call (so nothing written there reaches a later call), never the memory of an output (:func:`layout` with
    :func:`held_storages`), and the runner compares outputs with a reference run on inputs of its own. What the salt
    did give away until round 42 was the block's seed, from which every later call's inputs followed; each call's
    seed now comes from the runner in its turn (``Session._read_block``, :func:`kernelgym.judge.inputs.call_seed`).
    Nested inputs are sampled as top-level ones (:func:`kernelgym.judge.inputs.input_leaves`, round 44)."""
    out = []
    for k, value in enumerate(_input_leaves(values)):
        if not _is_tensor(value) or not value.numel():
            out.append(None)
            continue
        raw = _view(_reshape(_contiguous(_detach(value)), -1), _uint8)
        key = (salt, k, raw.numel(), str(raw.device))
        positions = _sample_positions.get(key)
        if positions is None:  # drawn once per block (the salt) and input, not once per call
            gen = _Generator(device=raw.device)
            _gen_seed(gen, (salt * 1_000_003 + k) % (2 ** 62))
            positions = _randint(0, raw.numel(), (min(raw.numel(), INPUT_SAMPLE_BYTES),), generator=gen,
                                 device=raw.device)
            if len(_sample_positions) >= 32:
                _sample_positions.clear()
            _sample_positions[key] = positions
        out.append(_clone(raw[positions]))
    return tuple(out)


_sample_positions: dict = {}


def changed_inputs(before: tuple, after: tuple) -> list[int]:
    """Indices of the inputs whose samples (:func:`sample_inputs`) differ."""
    return [k for k, (a, b) in enumerate(zip(before, after)) if (a is None) != (b is None) or
            (a is not None and not _equal(a, b))]


#: bytes of each output of a timed call sampled right after its snapshot is taken, and again when the runner asks
#: for that snapshot (:func:`snapshot_sample`)
SNAPSHOT_SAMPLE_BYTES = 1 << 16


def snapshot_key(salt: int) -> int:
    """A fresh secret (62 bits, from the operating system) for the positions of one timed call's snapshot sample
    (:func:`snapshot_sample`), mixed with the block's seed ``salt``; drawn after the call returned and kept in the
    worker's host memory only."""
    return (int.from_bytes(_urandom(8), "little") ^ salt) % (2 ** 62)


def snapshot_sample(values, key: int) -> tuple:
    """Host copies of :data:`SNAPSHOT_SAMPLE_BYTES` bytes of every tensor in ``values`` (a timed call's snapshot),
    at positions drawn on the host from ``key`` (:func:`snapshot_key`); ``None`` for what is not a tensor.

    Taken right after the snapshot and again before the snapshot is described to the runner (``check``), and
    compared (:func:`snapshot_changed`): the snapshot is the judge's own copy of the call's outputs, which no honest
    code touches, but it lives in the worker's memory until the runner asks for it, after the block (and the
    runner's clock on the block) ended. Code of the candidate's that runs between the judge's commands (a finalizer
    the collector runs after each command, a kernel still queued) could do a call's work there and write it into the
    snapshot: on a GPU a Triton kernel reaches any device address through pointer arithmetic, so the timed calls
    could return garbage at once and the compared ones still be right (a red-team helper, 2026-12-07). The
    positions are drawn on the host and their device copy is poisoned after use, and the samples stay in host
    memory, where no kernel reaches: a candidate cannot learn which bytes to leave alone.

    Each timed call gets a key of its own, drawn after it returned (:meth:`CallTimer.time_block`), and the positions
    are drawn afresh from it at every use, never kept: drawn once per block and cached at module level, they were
    there to read in the block's later calls, which computed only those bytes and left the rest to a finalizer
    after the block (a second red-team helper, 2026-12-07). Every step goes through functions bound at import
    (the indexing through ``torch.index_select``, not the replaceable ``Tensor.__getitem__``)."""
    out = []
    k = 0
    for value in values:
        if not _is_tensor(value) or not _numel(value):
            out.append(None)
            k += 1
            continue
        raw = _view(_reshape(_contiguous(_detach(value)), -1), _uint8)
        size = _numel(raw)
        if size <= SNAPSHOT_SAMPLE_BYTES:  # a small output: every byte
            positions = _arange(size)
        else:  # one draw per call (its key) and output, on the host
            gen = _Generator()
            _gen_seed(gen, (key * 1_000_003 + k) % (2 ** 62))
            positions = _randint(0, size, (SNAPSHOT_SAMPLE_BYTES,), generator=gen)
        here = _to(positions, _device_of(raw))
        out.append(_cpu(_index_select(raw, 0, here)))  # a tensor of its own, in host memory
        if here is not positions:
            _storage_fill(_untyped_storage(here), POISON_BYTE)
        k += 1
    return tuple(out)


def snapshot_changed(values, samples: tuple, key: int) -> bool:
    """Whether the snapshot ``values`` no longer holds the bytes :func:`snapshot_sample` took from it with ``key``
    (``samples``). The caller waits for the device first (:func:`settle`), so work still queued is counted. No
    built-in is called by name (a replaced ``builtins.any`` blinded it, a red-team finding)."""
    now = snapshot_sample(values, key)
    if _len(now) != _len(samples):
        return True
    for k in range(_len(now)):
        a, b = now[k], samples[k]
        if (a is None) != (b is None) or (a is not None and not _equal(a, b)):
            return True
    return False


def sample_digests(samples: tuple) -> list:
    """The SHA-256 (hex) of each host sample of :func:`snapshot_sample` (``None`` where it is ``None``): what the worker
    sends with a block's times as each call's *seal* (``Worker._timed_block``), and what the runner computes again
    from the outputs a ``check`` sends it (:meth:`kernelgym.judge.session.Session._receive_and_check`). The samples
    themselves stay in the worker's memory, where code of the candidate's that runs between the judge's commands can
    drop or retake them (a red-team helper, round 35): only what has left the worker is out of its reach."""
    return [None if s is None else _hexdigest(_sha256(_numpy(_cpu(s)))) for s in samples]


def settle(device: str) -> None:
    """Wait for every kernel queued on ``device`` (nothing on the CPU): before the worker answers a ``check``, so that
    GPU work queued after a block, outside the runner's clock on it, is inside the clock on the check's answer
    (:func:`kernelgym.judge.wallclock.check_lower_bound_ms`) and in the snapshot's comparison with its sample."""
    if str(device).startswith("cuda"):
        _cuda_sync()


def _overlaps(start: int, size: int, storage) -> bool:
    """Whether ``storage``'s bytes overlap ``[start, start + size)``: memory shared, whatever storage object holds it
    (a second storage over an input's bytes, ``torch.from_dlpack(x[n:])`` or ``x.untyped_storage()[k:]``, starts
    elsewhere than the input's own; a twentieth red-team helper)."""
    other, length = _storage_ptr(storage), _storage_nbytes(storage)
    return length > 0 and start < other + length and other < start + size


def held_storages(inputs) -> tuple:
    """The storages of the tensors among ``inputs``, taken before a call: :func:`layout` checks an output against
    them as well as against the storages the inputs have after it. A forward that pointed its input at another
    storage (``x.set_(...)``, ``x.data = ...``) and returned a view of the input's own memory passed the aliasing
    check, which read the inputs' storages after the call only (a red-team helper, round 39). Holding them also keeps
    that memory from being handed to an output of the same call. Nested inputs count
    (:func:`kernelgym.judge.inputs.input_leaves`). Only functions bound at import are called."""
    return tuple(_untyped_storage(x) for x in _input_leaves(inputs) if _is_tensor(x))


def layout(tensor, inputs=(), held=()) -> dict:
    """How ``tensor``'s elements lie in memory, for the runner's check of an output's layout
    (:func:`kernelgym.judge.correctness.check_layout`): its strides, whether it is contiguous, whether it is a lazy
    negative or conjugate view (``x.conj().imag``) whose bytes are not its values, and its device (work queued on
    another GPU than the one the timer synchronises would run after the timed interval, into the snapshot). Taken
    from a forward's own outputs (a trial's, or a timed call's before its snapshot: the snapshot's clone makes an
    expanded or lazy output dense, so its own layout says nothing of the forward's), with whether it shares memory
    with one of the call's ``inputs`` (a view of an input: the snapshot's clone copies it, untimed, where the
    reference's output is a fresh tensor; any overlap of their storages' bytes, :func:`_overlaps`), now or, for the
    storages in ``held`` (:func:`held_storages`, taken before the call), when the call began; nested inputs as
    top-level ones (:func:`kernelgym.judge.inputs.input_leaves`: until round 44 a view of a nested input was not
    seen). Only functions bound at import are called."""
    own = _untyped_storage(tensor)
    start, size = _storage_ptr(own), _storage_nbytes(own)
    aliases = size > 0 and (any(_is_tensor(x) and _overlaps(start, size, _untyped_storage(x))
                                for x in _input_leaves(inputs))
                            or any(_overlaps(start, size, storage) for storage in held))
    return {"strides": list(_stride(tensor)), "contiguous": bool(_is_contiguous(tensor)),
            "lazy": bool(_is_neg(tensor)) or bool(_is_conj(tensor)), "device": _str(_device_of(tensor)),
            "aliases_input": aliases}


def scrub(values) -> None:
    """Overwrite the whole storage of every tensor in ``values`` with :data:`POISON_BYTE`.

    Contract: called on tensors the caller is about to release (a call's inputs and outputs, after any snapshot of
    them was taken), so that memory the caching allocator hands out next never holds an earlier call's results.
    Whole storages are filled (not just the viewed elements), so views, expanded and strided outputs are covered;
    a storage shared with the candidate's own state (an output it also kept) is poisoned too, on purpose. Tensors in
    lists and tuples among ``values`` (nested inputs, :func:`kernelgym.judge.inputs.input_leaves`) are scrubbed too.
    """
    for value in _input_leaves(values):
        if _is_tensor(value):
            storage = _untyped_storage(value)
            if storage.nbytes():
                _storage_fill(storage, POISON_BYTE)


@dataclass(frozen=True)
class TimingConfig:
    warmup: int = 3
    min_runs: int = 5
    max_runs: int = 200
    budget_s: float = 5.0
    rel_ci: float = 0.01
    block: int = 5  # calls per block when timings are interleaved (:func:`alternate`)

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def summarize(times_ms: list[float]) -> dict:
    """Median, quartile spread and the half-width of the median's 95% confidence interval (:func:`median_ci95`) of
    a timing sample."""
    n = len(times_ms)
    if n == 0:
        return {"median_ms": None, "iqr_ms": None, "ci95_ms": None, "n": 0}
    med = statistics.median(times_ms)
    if n >= 4:
        q = statistics.quantiles(times_ms, n=4)
        iqr = q[2] - q[0]
    else:
        iqr = max(times_ms) - min(times_ms)
    return {"median_ms": med, "iqr_ms": iqr, "ci95_ms": median_ci95(times_ms), "n": n}


def median_ci95(times_ms: list[float]) -> float:
    """Half the width of a distribution-free 95% confidence interval of the median: the order statistics of ranks
    ``n/2 -/+ 0.98 sqrt(n)`` (the binomial's normal approximation, widened to whole ranks and clamped to the sample:
    the whole range for n <= 5). ``inf`` for fewer than two samples.

    The figure reported is the median, so its precision is the median's. A CI of the mean (the earlier statistic)
    grows with every outlier call: on the H200 under load, a few calls stretched by a descheduled host thread
    gave CIs of 15-92% of the median to samples whose middle half was within 2%, and those timings ran to their
    budget while holding the GPU alone (docs/BENCHMARKS.md, fifteenth session)."""
    n = len(times_ms)
    if n < 2:
        return float("inf")
    ordered = sorted(times_ms)
    spread = 0.98 * math.sqrt(n)
    lo = max(1, math.floor(n / 2 - spread))  # 1-based ranks
    hi = min(n, math.ceil(1 + n / 2 + spread))
    return (ordered[hi - 1] - ordered[lo - 1]) / 2


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


class CallTimer:
    """Times ``fn(*make_args(i))`` one call at a time, as described in the module docstring.

    ``i`` counts up over all of the timer's calls (warm-up calls use negative ``i``), so every timed call gets inputs
    from a seed not used before, also when calls come in blocks interleaved with another timer's (:func:`alternate`).
    ``method``: :data:`TIMING_METHODS` (GPU only; the CPU always uses ``time.perf_counter``).
    """

    def __init__(self, fn: Callable, make_args: Callable[[int], list], device: str, flusher: L2Flusher | None = None,
                 scrub_released: bool = False, method: str | None = None):
        self.fn, self.make_args = fn, make_args
        self.scrub_released = scrub_released
        #: how long (ms) the inputs' maker waited for the seed of the call whose inputs it made last (the worker's
        #: maker sets it, ``worker._revealed_inputs``; 0 where nothing was waited for); :meth:`time_block` reads it
        #: right after the maker returns, before any code of the candidate's runs, and counts what is beyond
        #: :data:`SEED_WAIT_ALLOWANCE_MS` as the call's time
        self.seed_wait_ms = 0.0
        self.method = check_method(method or TIMING_METHOD)
        self.device, self.on_gpu = device, device.startswith("cuda")
        self.flusher = flusher or L2Flusher(device)
        self.times: list[float] = []
        #: ``[flag, reason]`` for each call of the last block whose outputs were not snapshotted, copied or scrubbed
        #: because that would have run the candidate's own code after the timed interval (:func:`snapshot_refusal`);
        #: the worker rejects the block with the first
        self.refused_snapshots: list[list[str]] = []
        #: the activity method's recorder of a whole stage (:meth:`record_stage`), else one per block
        self.stage_recorder: _ActivityRecorder | None = None
        #: host time (ms) of the last block's own recorder (start, stop, parse): outside its calls, and trusted
        #: only where this process is (the runner's reference blocks, :class:`kernelgym.judge.wallclock.BlockClock`)
        self.recorder_ms = 0.0
        #: host time (ms per call) of each step of the last block (:data:`BLOCK_STEPS`), by this process's clock: a
        #: diagnostic of where a block's wall time goes, which the runner reports and never judges by
        self.step_ms: dict[str, float] = {}

    def record_stage(self) -> bool:
        """With the activity method on the GPU: start one recorder for every call timed from now on, numbered by
        their index in :attr:`times` (warm-up calls are not recorded), so that no block pays for starting and
        stopping a profiler; :meth:`stage_spans` ends it. Returns whether a recorder was started."""
        if not (self.on_gpu and self.method == "activity") or self.stage_recorder is not None:
            return False
        self.stage_recorder = _ActivityRecorder().start()
        return True

    def stage_spans(self) -> list[float | None]:
        """End :meth:`record_stage`'s recorder; the span of every call in :attr:`times` (``None`` where none was
        recorded, and for every call when no stage was recorded)."""
        recorder, self.stage_recorder = self.stage_recorder, None
        if recorder is None:
            return [None] * len(self.times)
        recorder.finish()
        spans = recorder.spans_ms()
        return [spans.get(i) for i in range(len(self.times))]

    def warm_up(self, calls: int) -> None:
        with _no_grad():
            for i in range(calls):
                self.fn(*self.make_args(-1 - i))
        if self.on_gpu:
            _cuda_sync()

    def time_block(self, calls: int, keep: list | None = None, changed: list | None = None,
                   salt: int = 0, after_call: Callable[[], None] | None = None,
                   layouts: list | None = None, samples: list | None = None,
                   sample_key: int | None = None, seal: Callable | None = None) -> list[float]:
        """Time ``calls`` more calls; returns their times (ms), also appended to :attr:`times`. With ``keep``, a
        snapshot (copy) of each call's outputs is appended to it right after the call, outside the timed interval:
        the judge compares one of them, chosen after the block, with the reference. With ``changed``, the inputs each
        call wrote into are appended too (:func:`changed_inputs` of samples taken before and after the call,
        :func:`sample_inputs` salted with ``salt``). With
        ``scrub_released``, each call's inputs and outputs are then scrubbed (:func:`scrub`), also outside the
        timed interval. ``after_call`` runs after each call, outside the timed interval too (the worker counts the
        candidate's kernel launches of each timed call there). With ``layouts``, each call's outputs' layouts
        (:func:`layout`, ``None`` for what is not a tensor) are appended too, taken before the snapshot. With ``keep`` and
        ``samples``, a sample of each snapshot is appended right after it is taken, as ``(key, sample)``: the call's own
        key (:func:`snapshot_key` salted with ``sample_key``, drawn after the call) and :func:`snapshot_sample` with
        it, for the check of the snapshot when it is sent (:func:`snapshot_changed`). With ``seal`` (and ``keep`` and
        ``samples``), ``seal(key, sample, layouts, changed)`` is called with the call's sample and its key, its
        outputs' layouts and the inputs it wrote into (``None`` where not taken) right after these are taken, before
        any code of the candidate's can run again (the next call, a finalizer freed with the call's outputs): the
        worker sends them to the runner there (:data:`SEAL_EVENT`), out of the reach of later code, which could
        rewrite the lists they are also appended to (a red-team helper, round 36). A call's time includes what its
        inputs' maker waited for their seed beyond :data:`SEED_WAIT_ALLOWANCE_MS` (:attr:`seed_wait_ms`, round 44)."""
        block: list[float] = []
        late: list[float] = []  # per call, the seed's wait counted as its time
        self.refused_snapshots = []
        stage = self.stage_recorder
        own = self.on_gpu and self.method == "activity" and stage is None
        recorder = _ActivityRecorder() if own else stage
        self.recorder_ms = 0.0
        steps = dict.fromkeys(BLOCK_STEPS, 0.0)
        with _no_grad(), quiet_for_timing(), recorder if own else _nullcontext():
            for k in range(calls):
                t = _perf_counter()
                args = self.make_args(len(self.times))
                waited, self.seed_wait_ms = self.seed_wait_ms, 0.0  # read before any code of the candidate's runs
                late.append(_seed_wait_counted(waited))
                steps["seed_wait"] += waited
                # every input, nested ones too, as the call gets them: a list the forward rebuilds is not read again
                leaves = _input_leaves(args)
                t = _lap(steps, "inputs", t)
                before = sample_inputs(leaves, salt) if changed is not None else None
                held = held_storages(leaves) if layouts is not None else ()  # the inputs' memory as the call gets it
                t = _lap(steps, "samples", t)
                self.flusher()
                t = _lap(steps, "flush", t)
                if self.on_gpu:
                    start, end = _Event(enable_timing=True), _Event(enable_timing=True)
                    _cuda_sync()
                    t = _lap(steps, "settle", t)
                    _event_record(start)
                    with recorder.call(k if own else len(self.times)) if recorder is not None else _nullcontext():
                        out = self.fn(*args)
                    _cuda_sync()
                    _event_record(end)
                    _event_sync(end)
                    elapsed = float(_event_elapsed(start, end))
                else:
                    t0 = _perf_counter()
                    out = self.fn(*args)
                    elapsed = (_perf_counter() - t0) * 1e3
                t = _lap(steps, "call", t)
                outs = _as_tuple(out)  # as every other reader of outputs: a named tuple's items too
                refused = snapshot_refusal(outs)
                if refused:  # the candidate's code would run in the snapshot below: none is taken
                    self.refused_snapshots.append(refused)
                    outs = ()
                shown = sample = wrote = None  # this call's, kept here for its seal (the lists are reachable)
                if layouts is not None:
                    shown = tuple(layout(o, leaves, held) if _is_tensor(o) else None for o in outs)
                    layouts.append(shown)
                t = _lap(steps, "layouts", t)
                if keep is not None:
                    keep.append(tuple(_clone(o) if _is_tensor(o) else o for o in outs))
                    t = _lap(steps, "snapshot", t)
                    if samples is not None:  # a key of the call's own, drawn now that it returned
                        call_key = snapshot_key(sample_key or 0)
                        sample = snapshot_sample(keep[-1], call_key)
                        samples.append((call_key, sample))
                        t = _lap(steps, "snapshot_sample", t)
                if changed is not None:
                    wrote = changed_inputs(before, sample_inputs(leaves, salt))
                    changed.append(wrote)
                    t = _lap(steps, "changed", t)
                sealed = None
                if seal is not None and sample is not None:  # before any code of the candidate's runs again
                    sealed = seal(call_key, sample, shown, wrote)
                    t = _lap(steps, "seal", t)
                if self.scrub_released:
                    scrub(outs)
                    scrub(leaves)
                # the call's inputs and outputs dropped (a finalizer or weakref callback of the candidate's runs here)
                # before the seal leaves: once it has, the runner sends the next call's seed, and no code of the
                # candidate's may run between then and that call's timed interval (round 43: a weakref callback on
                # the output, run here after the seal, waited for the runner's seed line without consuming it,
                # made the next call's inputs and did its work, outside the interval). The seal's frame was made
                # above (immutable bytes: round 36's finalizer cannot rewrite it); ``seal`` returns its sender
                del args, leaves, out, outs, held
                t = _lap(steps, "scrub", t)
                if sealed is not None:
                    sealed()
                    t = _lap(steps, "seal", t)
                if after_call is not None:
                    after_call()
                    _lap(steps, "after_call", t)
                self.times.append(elapsed)
                block.append(elapsed)
        self.step_ms = {name: round(v / max(calls, 1), 4) for name, v in steps.items()}
        first = len(self.times) - calls
        if own:
            self.recorder_ms = recorder.host_ms
            spans = recorder.spans_ms()
            block[:] = self.times[first:] = _merge_spans(block, [spans.get(k) for k in range(calls)])
        if any(late):  # under either method: the wait was before the call's interval, on no device's record
            block[:] = self.times[first:] = [ms + extra for ms, extra in zip(block, late)]
        return block


def _seed_wait_counted(waited_ms: float) -> float:
    """What of a timed call's wait for its seed (``waited_ms``, :attr:`CallTimer.seed_wait_ms`) counts as the call's
    time: the part beyond :data:`SEED_WAIT_ALLOWANCE_MS` (0 for what is not a finite, positive number)."""
    extra = waited_ms - SEED_WAIT_ALLOWANCE_MS
    return extra if extra > 0.0 and extra < math.inf else 0.0


#: the steps of a timed call whose host time :attr:`CallTimer.step_ms` reports, in their order
BLOCK_STEPS = ("seed_wait", "inputs", "samples", "flush", "settle", "call", "layouts", "snapshot", "snapshot_sample",
               "changed", "seal", "after_call", "scrub")

#: the event of the frame a worker sends for each timed call of a block, before the block's ``timing`` frame, right
#: after the call's sample and layouts are taken (``seal`` of :meth:`CallTimer.time_block`): ``{"event": "seal",
#: "seal": {...}}`` (``Worker._timed_block``, ``Session._read_block``). Named here, where the worker and the runner
#: both read it.
SEAL_EVENT = "seal"


def _lap(steps: dict, name: str, since: float) -> float:
    """Add the host time since ``since`` (a :func:`time.perf_counter` reading) to ``steps[name]`` (ms); the time now."""
    now = _perf_counter()
    steps[name] += (now - since) * 1e3
    return now


def snapshot_refusal(outs) -> list[str] | None:
    """``[flag, reason]`` when copying a timed call's outputs ``outs`` would run the candidate's code (after the
    timed interval, where work is free): a tensor output that is not exactly ``torch.Tensor`` (its
    ``__torch_function__`` runs in ``clone``: a red-team candidate ran its kernel there, 2026-12-06), or a torch
    function or dispatch mode still active; else ``None``."""
    odd = next((_type(o).__name__ for o in outs if _is_tensor(o) and _type(o) is not _Tensor), None)
    if odd is not None:
        return ["tensor_subclass", f"a timed call returned a tensor subclass ({odd}), not a torch.Tensor"]
    if any(depth() for depth in MODE_DEPTHS):
        return ["dispatch_mode", "a torch function or dispatch mode was active when a timed call's outputs were to "
                                 "be copied"]
    return None


def converged(times: list[float], config: TimingConfig) -> bool:
    """At least ``min_runs`` calls and the median's 95% CI half-width (:func:`median_ci95`) within ``rel_ci`` of the
    median."""
    if len(times) < config.min_runs:
        return False
    s = summarize(times)
    return s["ci95_ms"] <= config.rel_ci * s["median_ms"]


def confirmed_baseline_ms(interleaved_ms: float, alone_ms: float, rel_ci: float) -> float:
    """The eager reference's figure once a block of it has been timed again with the candidate's worker dead:
    ``alone_ms`` when it is more than ``rel_ci`` (the profile's CI target) below ``interleaved_ms`` - the candidate
    may have slowed the reference while they alternated - else ``interleaved_ms``. Taking the smaller of the two
    every time would let one short block's noise lower the baseline in about half the evaluations (on the H200,
    speedups of one candidate judged twice alone differed by 5% in median); a candidate can still slow the
    reference by up to ``rel_ci`` unseen, which is within the timing's own stated precision."""
    return alone_ms if alone_ms < interleaved_ms * (1.0 - rel_ci) else interleaved_ms


def time_calls(fn: Callable, make_args: Callable[[int], list], device: str, config: TimingConfig,
               flusher: L2Flusher | None = None, timer_cls: type = CallTimer, method: str | None = None) -> list[float]:
    """Warm up, then time calls one by one until :func:`converged`, ``budget_s`` or ``max_runs``; per-call ms.
    ``timer_cls``: :class:`CallTimer` or a subclass (the runner's run their blocks where its profiler lives);
    ``method``: :data:`TIMING_METHODS`."""
    timer = timer_cls(fn, make_args, device, flusher, method=method)
    timer.warm_up(config.warmup)
    started = _perf_counter()
    while len(timer.times) < config.max_runs:
        timer.time_block(1)
        if len(timer.times) >= config.min_runs and (converged(timer.times, config)
                                                    or _perf_counter() - started > config.budget_s):
            break
    return timer.times


def alternate(blocks: dict[str, Callable[[int], list[float]]], config: TimingConfig,
              clock: Callable[[], float] = _perf_counter,
              round_hold: Callable[[], ContextManager] = contextlib.nullcontext) -> dict[str, list[float]]:
    """Interleave blocks of timed calls of several timers (for the judge: the candidate, timed by its worker, and
    the eager reference, timed by the runner), so that clock or thermal drift reaches every sample alike.

    Each round runs one block of each timer (``min_runs`` calls first, then ``block`` calls). Rounds go on until
    every sample has :func:`converged` or reached ``max_runs``, or, once every sample has ``min_runs`` calls,
    until ``budget_s`` (shared by all timers) is spent on ``clock`` (seconds; the judge's clock leaves out the time
    a block waited for the GPU, so a loaded judge takes as many samples as an idle one). Each round runs inside
    ``round_hold()`` (the judge: the GPU held alone, rounds merged into slices by ``admission.SlicedHold``).
    Returns each timer's per-call ms.
    """
    samples: dict[str, list[float]] = {name: [] for name in blocks}
    started = clock()
    while True:
        with round_hold():
            for name, run_block in blocks.items():
                sample = samples[name]
                if len(sample) >= config.max_runs:
                    continue
                want = min(config.min_runs if not sample else config.block, config.max_runs - len(sample))
                got = run_block(want)
                if len(got) != want:
                    raise ValueError(f"timer {name!r} returned {len(got)} measurements, expected {want}")
                sample.extend(got)
        finished = all(len(s) >= config.max_runs or converged(s, config) for s in samples.values())
        out_of_time = clock() - started > config.budget_s
        if finished or (out_of_time and all(len(s) >= config.min_runs for s in samples.values())):
            return samples
