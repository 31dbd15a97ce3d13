"""The untrusted side: a throw-away, sandboxed process that loads one candidate and runs it as the runner asks.

Started by :mod:`kernelgym.judge.launch` through :mod:`kernelgym.judge.bootstrap`, possibly ahead of its candidate
(it imports torch and Triton, then waits). It reads one JSON request line from stdin (the task, the text, the
device, limits; no seeds), applies the request's ``env`` settings, says ``ready``, and from then on obeys one
:class:`~kernelgym.judge.protocol.Command` at a time, answering each with :class:`~kernelgym.judge.protocol.Event`
frames on its result channel (a pipe the runner passed as ``RESULT_FD``; what the candidate prints goes to a log):

- ``go``: execute the candidate's text (the very string the static checks read, compiled here, never re-read from
  a file), build ``ModelNew`` under the shared init seed, one warm-up forward → ``loaded``; each Triton compilation
  on the way is announced (``compiling``, ``compiled``, then wait for ``resume``) so the runner can give the GPU
  back while it runs (:mod:`kernelgym.judge.compile_pause`);
- ``trial SEED OUTLIER``: fresh inputs from ``SEED`` (outliers injected when asked), a copy of them, the forward, a
  device-wide synchronize, a snapshot of the outputs → ``outputs`` (descriptions, modified inputs, integrity flags),
  then each output into a file the runner made (``send PATH`` → ``tensor``);
- ``profile SEED``: one profiled forward → ``profile`` (which kernels ran), then its outputs, as for a trial;
- ``null CALLS SEED SPECS``, only before ``go`` (no candidate code has run yet): a timed block, as below, of a
  forward that allocates empty outputs of the shapes and dtypes in ``SPECS`` and does nothing else → ``timing``.
  Every per-call and per-block step of a block (inputs from the seed, the L2 flush, synchronisation, snapshots,
  scrubbing, the launch count, the frame's integrity flags, the pipe; the request's timing method, with one
  recorder over all null blocks under the activity method) runs as for the candidate, so the runner's clock on it,
  less its times, is the per-call overhead that the runner's bound on the candidate's time subtracts
  (:mod:`kernelgym.judge.wallclock`);
- ``time SEED`` → ``timing_ready`` after warm-up; ``block CALLS SEED [PROBE OUTLIER]`` → ``timing`` (per-call
  ms); call ``PROBE`` of the block (a *probe*) gets inputs with ``OUTLIER``'s outliers, the others standard ones;
  each call's outputs are snapshotted right after it, and ``check INDEX`` sends the snapshot of that call, as for a
  trial.

Seeds arrive one command at a time, so no future input can be known in advance; torch's global generator is
reseeded unpredictably after every draw. Everything the worker relies on is bound before the candidate's text runs,
and before any output is described or copied the worker checks that nothing it relies on was replaced, that no
dispatch or function mode is active and that no thread of the candidate's is running (``integrity_flags``).

The worker never judges: the runner compares outputs against its own reference, applies every limit, and keeps
its own clock on the timings. The runner kills the worker's whole process group (and so its sandbox) when done.
"""

from __future__ import annotations

import builtins as _builtins
import gc as _gc
import io
import json
import linecache
import os
import socket as _socket
import sys
import traceback
import types

# Bind everything the worker relies on before candidate code can patch it.
import torch  # noqa: E402

from kernelgym.judge import compile_pause  # noqa: E402
from kernelgym.judge import gpu_compile  # noqa: E402
from kernelgym.judge.autotune import forget_picks as _forget_picks  # noqa: E402
from kernelgym.judge import timing as _timing  # noqa: E402  (captures timing primitives at import)
from kernelgym.judge import activity as _activity  # noqa: E402  (the activity timing method, bound early)
from kernelgym.judge import profile as _profile  # noqa: E402  (the torch-use measurement, watched)
from kernelgym.judge import inputs as _inputs_module  # noqa: E402  (watched whole: the timed calls' inputs)
from kernelgym.judge.inputs import NO_OUTLIERS, as_tuple, build_model, call_seed, make_inputs  # noqa: E402
from kernelgym.judge.inputs import input_leaves as _input_leaves  # noqa: E402
from kernelgym.judge.profile import HostReads, LaunchCounter, candidate_kernel_names, profile_forward  # noqa: E402
from kernelgym.judge.device_transfer import device_index, write_into  # noqa: E402
from kernelgym.judge import protocol as _protocol  # noqa: E402
from kernelgym.judge.wallclock import MAX_STEPS as _wallclock_max_steps  # noqa: E402
from kernelgym.judge.protocol import Command, Event, tensor_header, write_frame  # noqa: E402
from kernelgym.judge import transfer as _transfer  # noqa: E402
from kernelgym.judge.transfer import write_tensor  # noqa: E402
from kernelgym.tasks import Task  # noqa: E402

try:  # nearly every candidate imports Triton: a worker started ahead has it loaded already
    import triton  # noqa: E402, F401
    import triton.language  # noqa: E402, F401
except ImportError:  # pragma: no cover - the CUDA backend works without Triton
    pass

import threading as _threading  # noqa: E402

_current_frames = sys._current_frames
import time as _time  # noqa: E402
import signal as _signal  # noqa: E402

_getsignal = _signal.getsignal
_perf_counter = _time.perf_counter

_equal = torch.equal
_isnan, _where = torch.isnan, torch.where


def _unchanged(a: torch.Tensor, copy: torch.Tensor) -> bool:
    """Whether the input ``a`` still holds its ``copy``'s values, a NaN where the copy has one counting as kept
    (``torch.equal`` alone never finds a NaN equal to itself, so every honest kernel of a task whose inputs hold
    NaN was flagged ``input_mutation``: a red-team helper's finding, round 34)."""
    if _equal(a, copy):
        return True
    nan = _isnan(a)
    return _equal(nan, _isnan(copy)) and _equal(_where(nan, 0, a), _where(nan, 0, copy))

_CallTimer = _timing.CallTimer
_time_block = _timing.CallTimer.time_block
_mode_depths = _timing.MODE_DEPTHS
_warm_up = _timing.CallTimer.warm_up
_record_stage = _timing.CallTimer.record_stage
_stage_spans = _timing.CallTimer.stage_spans
_scrub = _timing.scrub
_layout = _timing.layout
_held_storages = _timing.held_storages
_snapshot_key = _timing.snapshot_key
_snapshot_changed = _timing.snapshot_changed
_settle = _timing.settle
_sample_digests = _timing.sample_digests
_SEAL_EVENT = _timing.SEAL_EVENT
_str = str
_clone = torch.Tensor.clone
_is_tensor = torch.is_tensor
_type = type
_len = len
_MAX_STEPS = _wallclock_max_steps
_Tensor = torch.Tensor
_Parameter = torch.nn.Parameter
_readline = sys.stdin.readline
_SEED_VERB = Command.SEED_NEXT
_encode_frame = _protocol.encode_frame
_os_write = os.write


def _write_all(fd: int, data: bytes) -> None:
    """``data`` (an encoded frame) written whole to ``fd``."""
    view = memoryview(data)
    while view:
        view = view[_os_write(fd, view):]


def _watched(launch_methods: tuple = ()) -> dict:
    """Objects a candidate might patch to fool the judge; compared by identity before every output leaves."""
    builtins = _builtins
    cuda = torch.cuda
    t = torch.Tensor
    watched = {
        "torch.cuda.synchronize": cuda.synchronize, "torch.cuda.Event": cuda.Event,
        "torch.cuda.Event.record": cuda.Event.record, "torch.cuda.Event.elapsed_time": cuda.Event.elapsed_time,
        "torch.cuda.Event.synchronize": cuda.Event.synchronize, "time.perf_counter": _time.perf_counter,
        "torch.equal": torch.equal, "torch.allclose": torch.allclose, "torch.Tensor.__eq__": t.__eq__,
        "torch.randn": torch.randn, "torch.rand": torch.rand, "torch.randint": torch.randint,
        "torch.manual_seed": torch.manual_seed, "torch.random.manual_seed": torch.random.manual_seed,
        "torch.nn.Module.__call__": torch.nn.Module.__call__,
        "torch.no_grad": torch.no_grad, "torch.is_tensor": torch.is_tensor, "torch.frombuffer": torch.frombuffer,
        "builtins.isinstance": builtins.isinstance, "builtins.len": builtins.len, "builtins.float": builtins.float,
        "builtins.type": builtins.type,
        "kernelgym.judge.timing.time_calls": _timing.time_calls, "kernelgym.judge.inputs.make_inputs": make_inputs,
        "kernelgym.judge.timing.CallTimer.time_block": _timing.CallTimer.time_block,
        "kernelgym.judge.timing.CallTimer.warm_up": _timing.CallTimer.warm_up,
        "kernelgym.judge.timing.CallTimer.record_stage": _timing.CallTimer.record_stage,
        "kernelgym.judge.timing.CallTimer.stage_spans": _timing.CallTimer.stage_spans,
        "kernelgym.judge.timing._cuda_sync": _timing._cuda_sync, "kernelgym.judge.timing._Event": _timing._Event,
        "kernelgym.judge.timing._event_record": _timing._event_record,
        "kernelgym.judge.timing._event_elapsed": _timing._event_elapsed,
        "kernelgym.judge.timing._event_sync": _timing._event_sync,
        "kernelgym.judge.timing._perf_counter": _timing._perf_counter,
        "kernelgym.judge.timing.scrub": _timing.scrub,
        "kernelgym.judge.timing.layout": _timing.layout, "kernelgym.judge.timing.held_storages": _timing.held_storages,
        "kernelgym.judge.timing._overlaps": _timing._overlaps,
        "kernelgym.judge.timing._stride": _timing._stride,
        "kernelgym.judge.timing._is_contiguous": _timing._is_contiguous,
        "kernelgym.judge.timing._is_neg": _timing._is_neg,
        "kernelgym.judge.timing._is_conj": _timing._is_conj,
        "kernelgym.judge.timing._device_of": _timing._device_of,
        "kernelgym.judge.timing._str": _timing._str,
        "kernelgym.judge.timing._storage_ptr": _timing._storage_ptr,
        "kernelgym.judge.timing._storage_nbytes": _timing._storage_nbytes,
        "kernelgym.judge.timing.sample_inputs": _timing.sample_inputs,
        "kernelgym.judge.timing.changed_inputs": _timing.changed_inputs,
        "kernelgym.judge.timing._storage_fill": _timing._storage_fill,
        "kernelgym.judge.timing._untyped_storage": _timing._untyped_storage,
        "kernelgym.judge.timing._ActivityRecorder": _timing._ActivityRecorder,
        "kernelgym.judge.activity.attribute": _activity.attribute,
        "kernelgym.judge.activity._profile": _activity._profile,  # a fake profiler could forge the records
        "kernelgym.judge.activity._autograd_profile": _activity._autograd_profile,
        "kernelgym.judge.activity._ProfilerResult": _activity._ProfilerResult,
        "kernelgym.judge.activity._KinetoEvent": _activity._KinetoEvent,
        "kernelgym.judge.activity._record_function": _activity._record_function,
        "kernelgym.judge.activity._DeviceType": _activity._DeviceType,
        "kernelgym.judge.activity._ProfilerActivity": _activity._ProfilerActivity,
        "kernelgym.judge.activity.ActivityRecorder.__enter__": _activity.ActivityRecorder.__enter__,
        "kernelgym.judge.activity.ActivityRecorder.__exit__": _activity.ActivityRecorder.__exit__,
        "kernelgym.judge.activity.ActivityRecorder.start": _activity.ActivityRecorder.start,
        "kernelgym.judge.activity.ActivityRecorder.finish": _activity.ActivityRecorder.finish,
        "kernelgym.judge.activity.ActivityRecorder._finish": _activity.ActivityRecorder._finish,
        "kernelgym.judge.activity.ActivityRecorder.call": _activity.ActivityRecorder.call,
        "kernelgym.judge.activity.ActivityRecorder.spans_ms": _activity.ActivityRecorder.spans_ms,
        "kernelgym.judge.transfer.write_tensor": write_tensor,
        "kernelgym.judge.transfer.flat_bytes": _transfer.flat_bytes,
        "kernelgym.judge.protocol.encode_frame": _protocol.encode_frame,  # (write_frame binds its own copy)
        "kernelgym.judge.protocol.write_frame": _protocol.write_frame,
        "kernelgym.judge.device_transfer.write_into": write_into,
    }
    watched.update(_activity.watched_methods())  # the profiler's own methods: patched, they could forge spans
    # every name bound at the top of the judge's modules that a timed block runs (the timer, the inputs, the
    # recorder) and of this one, not only the ones listed above: a red-team helper (2026-12-07) replaced
    # timing._clone and timing.snapshot_refusal, unwatched, and did a timed call's work in the snapshot, outside its
    # timed interval (all names: a list of chosen ones is always one short)
    for module in (_timing, _inputs_module, _activity, sys.modules[__name__]):
        for name, value in vars(module).items():
            if not (name.startswith("__") and name.endswith("__")):
                watched.setdefault(f"{module.__name__}.{name}", value)
    # every built-in as well: the judge's own code calls them by name (timing.snapshot_changed called ``any``; a
    # red-team helper replaced ``builtins.any`` for that frame alone and the sample check saw no change, 2026-12-07)
    for name, value in vars(builtins).items():
        if name not in _UNWATCHED_BUILTINS:
            watched.setdefault(f"builtins.{name}", value)
    for name in ("clone", "detach", "contiguous", "reshape", "view", "copy_", "numel", "element_size", "cpu",
                 "numpy", "tolist", "item", "__repr__", "__format__", "data_ptr", "to", "stride", "is_contiguous",
                 "is_neg", "is_conj"):
        watched[f"torch.Tensor.{name}"] = getattr(t, name)
    me = sys.modules[__name__]
    for name in ("_time_block", "_warm_up", "_record_stage", "_stage_spans", "_clone", "_equal", "_is_tensor",
                 "_type", "_readline", "_CallTimer", "_scrub", "_layout", "as_tuple", "build_model", "call_seed",
                 "make_inputs", "_next_call_seed", "_revealed_inputs", "_SEED_VERB", "_len",  # each call's seed
                 "_seed_and_wait", "_perf_counter", "_input_leaves",
                 "_encode_frame", "_os_write", "_write_all", "_only_threads", "_BASE_THREADS",
                 "_handlers_unchanged", "_BASE_HANDLERS", "_getsignal", "_no_send",
                 "write_tensor", "write_into", "device_index", "tensor_header", "write_frame",
                 "_current_frames", "_snapshot_key", "_snapshot_changed", "_settle",  # what reads and sends outputs
                 "_reclaim_channel", "_channel_id", "_fstat", "_dup2", "_exit", "_RESULT_FD", "_RESULT_ID",
                 "_RESULT_SPARE"):  # and what keeps the channel the runner's (round 38)
        watched[f"kernelgym.judge.worker.{name}"] = getattr(me, name)
    for name in ("send", "send_outputs", "integrity_flags", "block", "_timed_block", "check", "spans", "trial",
                 "profile"):
        watched[f"kernelgym.judge.worker.Worker.{name}"] = getattr(Worker, name)
    for name in ("profile_forward", "candidate_kernel_names"):  # what the torch-use policy is measured with
        watched[f"kernelgym.judge.worker.{name}"] = getattr(me, name)
    for name in ("torch_copied_bytes", "_copy_bytes", "_within_launches", "_argument_storage_bytes",
                 "coverage_from_events", "events_of", "profiler", "within_trusted", "_plain"):  # and what profile_forward calls by name
        watched[f"kernelgym.judge.profile.{name}"] = getattr(_profile, name)
    for name in ("own", "install"):
        watched[f"kernelgym.judge.profile.LaunchCounter.{name}"] = getattr(LaunchCounter, name)
    for path in launch_methods:  # the launch and host-read counters' wrappers, the interpreter's memory bounds
        watched[path] = _resolve(path)
    return watched


def _fits_a_float(value) -> bool:
    """Whether the number ``value`` converts to a float (an int of 400 digits does not: it goes as ``other``, the
    candidate's wrong output, not the worker's crash)."""
    try:
        float(value)
    except OverflowError:
        return False
    return True


def _resolve(path: str):
    root, *rest = path.split(".")
    obj = _ROOTS.get(root)
    if obj is None:
        name = ".".join(path.split(".")[:3])
        obj = _modules.get(name)  # what an import would find (sys.modules), without the import machinery's cost
        if obj is None:
            import importlib as _importlib

            obj = _importlib.import_module(name)
        rest = path.split(".")[3:]
    for part in rest:
        obj = getattr(obj, part)
    return obj


_ROOTS = {"builtins": _builtins, "torch": torch, "time": _time}
_modules = sys.modules


_WATCHED: dict = {}
_MISSING = object()
#: names of the builtins module that are data, not functions the judge calls (``_`` is the last interactive result)
_UNWATCHED_BUILTINS = frozenset({"_", "__name__", "__doc__", "__package__", "__loader__", "__spec__", "__debug__"})
_FunctionType = types.FunctionType
#: Besides the paths (``str`` keys) of :data:`_WATCHED`, it holds under ``("parts", path)`` the parts of every watched
#: Python function that can be replaced in place, keeping the function object (so the identity watch sees
#: nothing): its code, defaults, keyword defaults and closure cells' contents (:func:`_function_parts`; a red-team
#: helper swapped ``timing.snapshot_changed.__code__``, 2026-12-07), and under ``("class", cls)`` a copy of the
#: namespace of each class a timed call's steps and the output path run through (:func:`_class_namespaces`): a
#: method set on ``torch.Tensor`` shadows the C base's (the same helper shadowed ``Tensor.__getitem__``, which the
#: snapshot's sample indexed through), and a new entry is as much a change as a replaced one. One structure: code
#: that clears it has defeated the in-process watch as a whole (the runner's clock is what is left).


def _next_call_seed() -> int:
    """The input seed of a timed block's next call: the runner's ``seed SEED`` line (``Command.SEED_NEXT``), which it
    sends when it has read the previous call's seal. Anything else on the command channel at that point was put
    there by no code of the judge's (the candidate's, reading the channel first): an error, the block's
    ``runtime_error``."""
    return _seed_and_wait()[0]


def _seed_and_wait() -> tuple[int, float]:
    """:func:`_next_call_seed`'s seed, and how long (ms) the worker was blocked reading the command channel for its
    line: the runner's turnaround and the pipe, unless something else read the line first and held it (a native
    thread or a child process of the candidate's, which the checks below cannot see: round 44). The timer counts
    the wait beyond :data:`kernelgym.judge.timing.SEED_WAIT_ALLOWANCE_MS` as the call's time."""
    if not _only_threads():
        raise RuntimeError("a thread of the candidate's ran while the worker waited for the runner's seed of the next "
                           "timed call (it could read the seed first and do that call's work before its interval)")
    if not _handlers_unchanged():
        raise RuntimeError("a signal handler of the candidate's was set while the worker waited for the runner's seed "
                           "of the next timed call (run in the wait, it could read the seed first)")
    asked = _perf_counter()
    words = _readline().split()
    waited = (_perf_counter() - asked) * 1e3
    if _len(words) != 2 or words[0] != _SEED_VERB or not words[1].isascii() or not words[1].isdigit() or \
            _len(words[1]) > 20:
        raise RuntimeError("the runner's seed for the next timed call was not on the command channel")
    return int(words[1]), waited


def _no_send() -> None:
    """A seal's sender where the seal was sent already (flagged, as soon as it was made)."""


def _only_threads() -> bool:
    """Whether no thread but the worker's own runs Python (:data:`_BASE_THREADS`, taken before any candidate code
    ran; empty in a stand-in without a worker's start: nothing to compare with). A few microseconds."""
    if not _BASE_THREADS:
        return True
    for ident in _current_frames():
        if ident not in _BASE_THREADS:
            return False
    return True


def _signal_handlers() -> dict:
    """Every signal's Python-level handler now (signals whose handler cannot be read are left out)."""
    handlers = {}
    for signum in _signal.valid_signals():
        try:
            handlers[signum] = _getsignal(signum)
        except (OSError, ValueError):
            pass
    return handlers


def _handlers_unchanged() -> bool:
    """Whether every signal's Python-level handler is the one it had before any candidate code ran
    (:data:`_BASE_HANDLERS`; empty in a stand-in without a worker's start: nothing to compare with). A Python handler
    runs in the main thread while it is blocked reading, so one the candidate set could read the runner's next seed
    line in the worker's wait for it and put it back (the open route of round 43). About 50 us (62 signals)."""
    for signum, handler in _BASE_HANDLERS.items():
        if _getsignal(signum) is not handler:
            return False
    return True


#: what the null forward calls, bound at import (so watched, as every name of this module): it runs again after the
#: candidate's code did (the late null blocks), and a ``torch.empty`` or ``json.loads`` looked up when it ran was the
#: candidate's to replace with one that slept in the null blocks alone (round 45; neither is watched by name)
_torch_empty, _json_loads, _torch_module, _getattr = torch.empty, json.loads, torch, getattr


def _null_forward(specs: str, device: str):
    """The null blocks' forward: fresh, empty outputs of ``specs`` (the reference's ``describe`` as JSON: tensors of
    a shape and dtype on ``device``, or scalars, returned as ``0.0``), one output alone, several as a tuple. Calls
    only functions bound at import."""
    outputs = [(tuple(d["shape"]), _getattr(_torch_module, d["dtype"])) if d.get("kind") == "tensor" else None
               for d in _json_loads(specs)]

    def allocate(*args):
        made = tuple(_torch_empty(o[0], dtype=o[1], device=device) if o is not None else 0.0 for o in outputs)
        return made[0] if _len(made) == 1 else made

    return allocate


def _revealed_inputs(module, device: str, seed: int, timer, probe: int = -1, outlier: int = NO_OUTLIERS):
    """A timed block's inputs' maker for ``timer`` (its ``make_args``, numbered over all of the timer's calls; the
    block's first call is the one after those the timer has timed): the first call on inputs from ``seed``, each later
    call on inputs from the seed the runner sends for it (:func:`_next_call_seed`), read when the timer asks for that
    call's inputs (all calls before it timed), and only then; call ``probe`` of the block with ``outlier``'s outliers.
    Asked for a later call's inputs earlier (the forward, calling it to see them), it raises rather than wait for a
    seed the runner sends only once the running call is sealed; the block's seed never reaches the worker
    (:func:`kernelgym.judge.inputs.call_seed`). A stand-in without a result channel (``_RESULT_FD`` is ``None`` when the
    block starts: no runner, and no seals, ``_timed_block``) takes each later call's seed as ``call_seed(seed, n)``
    for the block's ``n``-th call; in a worker, ``main`` sets the channel before any candidate code runs, and a
    candidate that unset it would be seen by the watch, and send no seals.

    Until round 42 the worker got the block's seed and made every call's inputs from it: a forward read it (from
    ``timing._sample_positions``'s keys, or this maker, in ``CallTimer.time_block``'s frame), made the block's later
    inputs itself and computed all the block's outputs in its first call, together (a red-team helper: ``ok`` at 7-10
    times the honest kernel's speed, the runner's clock on the block satisfied)."""
    first = _len(timer.times)
    seeds = {first: seed}
    runner = _RESULT_FD is not None

    def make(i):
        known = seeds.get(i)
        if known is None:
            if i != first + _len(seeds) or _len(timer.times) != i:
                raise RuntimeError(f"the inputs of timed call {i} were asked for before their turn")
            if runner:  # how long it waited for the seed counts in the call's time beyond an allowance (round 44)
                known, timer.seed_wait_ms = _seed_and_wait()
            else:
                known = call_seed(seed, i - first)
            seeds[i] = known
        return make_inputs(module, known, device, outlier if i - first == probe else NO_OUTLIERS)

    return make


def _function_parts(value) -> tuple | None:
    """What of the Python function ``value`` can change in place (``None`` for anything else): its code object,
    defaults, keyword defaults (their items) and the contents of its closure's cells (an empty cell as itself)."""
    if _type(value) is not _FunctionType:
        return None
    kwdefaults = value.__kwdefaults__
    cells = []
    for cell in value.__closure__ or ():
        try:
            cells.append(cell.cell_contents)
        except ValueError:  # an empty cell
            cells.append(cell)
    return (value.__code__, value.__defaults__) + (tuple(kwdefaults.items()) if kwdefaults else ()) + tuple(cells)


def _parts_changed(value, parts: tuple | None) -> bool:
    """Whether ``value``'s :func:`_function_parts` are no longer ``parts`` (compared by identity)."""
    if parts is None:
        return False
    now = _function_parts(value)
    if now is None or len(now) != len(parts):
        return True
    for k in range(len(now)):
        a, b = now[k], parts[k]
        if _type(a) is tuple and _type(b) is tuple and len(a) == 2 == len(b):  # a keyword default's (name, value)
            if a[0] != b[0] or a[1] is not b[1]:
                return True
        elif a is not b:
            return True
    return False


def _class_namespaces() -> dict:
    """Each class a timed call's steps and the output path run through (torch's tensor, storage, module and
    parameter classes and every class defined at the top of the judge's timed-path modules and this one) with a
    copy of its namespace."""
    classes = [torch.Tensor, torch.nn.Parameter, torch.nn.Module, torch.UntypedStorage, torch.Generator]
    for module in (_timing, _inputs_module, _activity, _profile, sys.modules[__name__]):
        for value in vars(module).values():
            if isinstance(value, type) and getattr(value, "__module__", None) == module.__name__:
                classes.append(value)
    return {cls: dict(vars(cls)) for cls in classes}


#: entries Python itself adds to a class's namespace as a cache: ``copyreg`` stores ``__slotnames__`` on a class the
#: first time one of its instances is pickled (``torch.save`` of a tensor, an honest candidate's side effect, added
#: it to ``torch.Tensor`` and was refused as a change of the class)
_CLASS_CACHES = frozenset({"__slotnames__"})


def _namespace_changed(cls, names: dict) -> bool:
    """Whether the class ``cls``'s namespace gained, lost or rebound an entry since ``names`` was copied from it, or
    one of its methods had its code replaced in place (:data:`_CLASS_CACHES` aside)."""
    now = vars(cls)
    if len([n for n in now if n not in _CLASS_CACHES]) != len([n for n in names if n not in _CLASS_CACHES]):
        return True
    for name, value in names.items():
        if name in _CLASS_CACHES:
            continue
        if now.get(name, _MISSING) is not value or (_type(value) is _FunctionType and
                                                     _parts_changed(value, _WATCHED.get(("parts", (cls, name))))):
            return True
    return False


def _watch(watched: dict) -> None:
    """Take :data:`_WATCHED` (``watched``), the in-place parts of its functions and of the watched classes' methods,
    and the watched classes' namespaces, before any candidate code runs."""
    _WATCHED.update(watched)
    for path, value in watched.items():
        parts = _function_parts(value)
        if parts is not None:
            _WATCHED[("parts", path)] = parts
    for cls, names in _class_namespaces().items():
        _WATCHED[("class", cls)] = names
        for name, value in names.items():
            parts = _function_parts(value)
            if parts is not None:
                _WATCHED[("parts", (cls, name))] = parts


#: what a timed call's steps outside its interval read from the judge's timer (:class:`timing.CallTimer`): the
#: inputs' maker, the forward, the L2 flush and its buffer, the device, method and scrubbing; a candidate that
#: replaced ``make_args`` from inside a call did every later call's work as its inputs were made (a red-team
#: helper, 2026-12-07), and one without the flush would run on a warm L2
_TIMER_FIELDS = ("make_args", "fn", "flusher", "on_gpu", "method", "scrub_released", "device")
#: each timer's state as the worker made it, before any candidate code could run (by ``id``)
_TIMERS_MADE: dict = {}


def _timer_state(timer) -> tuple:
    """The values of :data:`_TIMER_FIELDS` and the flush's buffer, compared by identity."""
    return tuple(getattr(timer, name, None) for name in _TIMER_FIELDS) + \
        (getattr(getattr(timer, "flusher", None), "buf", None),)


def _made(timer) -> None:
    """Record ``timer``'s state as the worker made it (before any candidate code ran with it)."""
    _TIMERS_MADE[id(timer)] = (timer, _timer_state(timer))


def _timer_changed(timer, at_start: tuple) -> bool:
    """Whether ``timer`` differs from its state at the block's start (``at_start``, the inputs' maker and forward
    the worker set for the block) or, but for those two, from its state as made (:func:`_made`)."""
    now = _timer_state(timer)
    made = _TIMERS_MADE.get(id(timer))
    if made is not None and made[0] is timer and any(a is not b for a, b in zip(now[2:], made[1][2:])):
        return True
    return any(a is not b for a, b in zip(now, at_start))


_BASE_THREADS: set = set()
#: every signal's Python-level handler as :func:`main` found it before any candidate code ran (:func:`_handlers_unchanged`)
_BASE_HANDLERS: dict = {}
#: the result channel's descriptor, bound by :func:`main` before the watch is taken (so watched like every name here)
#: and read by :meth:`Worker.send` and the seals of :meth:`Worker._timed_block`; ``None`` until then
_RESULT_FD = None
#: the result channel's identity (``st_dev``, ``st_ino`` of the pipe) and a copy of its descriptor, both taken by
#: :func:`main` with :data:`_RESULT_FD` (:func:`_reclaim_channel`)
_RESULT_ID = None
_RESULT_SPARE = None
_fstat, _dup, _dup2, _exit = os.fstat, os.dup, os.dup2, os._exit
#: the flag of a frame written after the channel was found pointed elsewhere (and pointed back)
CHANNEL_TAKEN = ["monkeypatch", "the candidate pointed the worker's result channel (its descriptor's number) at "
                                "another file, where frames the worker wrote could be rewritten before passing on"]


def _channel_id(fd) -> tuple | None:
    """``(st_dev, st_ino)`` of the file ``fd`` refers to, or ``None`` where it is closed."""
    try:
        st = _fstat(fd)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _reclaim_channel(fd) -> list | None:
    """Called right before each frame is written to ``fd`` (:meth:`Worker.send`, the seals of
    :meth:`Worker._timed_block`), with no code of the candidate's between this and the write: ``None`` where ``fd``
    is still the result channel :func:`main` bound; else the channel is put back on that number from the worker's
    own copy of it, and the flag the frame must carry (:data:`CHANNEL_TAKEN`); where that copy was taken too, the
    process ends (no frame could reach the runner unread). ``os.dup2`` of a pipe of its own onto the descriptor's
    number keeps :data:`_RESULT_FD`'s value, which the watch compares: a candidate read each seal there, forged its
    digests for the true output's bytes and passed it on, with every watched name whole (a red-team helper,
    round 38)."""
    if fd is None or _RESULT_ID is None or fd != _RESULT_FD or _channel_id(fd) == _RESULT_ID:
        return None
    if _RESULT_SPARE is not None and _channel_id(_RESULT_SPARE) == _RESULT_ID:
        try:
            _dup2(_RESULT_SPARE, fd)
        except OSError:
            pass
        if _channel_id(fd) == _RESULT_ID:
            return CHANNEL_TAKEN
    _exit(3)


def _small_steps(steps):
    """A timer's per-step host times as the frame carries them: a dict of at most ``MAX_STEPS`` entries, else
    ``None`` (the runner checks the rest, :func:`kernelgym.judge.wallclock.step_report`; a diagnostic only)."""
    return steps if _type(steps) is dict and _len(steps) <= _MAX_STEPS else None


def _seals(calls: int, samples: list | None, layouts: list, changed: list) -> list | None:
    """Each timed call's *seal*: the key of its snapshot's sample (a string: it has 62 bits), the sample's digests
    (:func:`timing.sample_digests`), the layouts of its outputs as returned and which inputs it wrote into. The runner
    checks a ``check``'s answer against it (``Session._receive_and_check``): the worker's own copies of these are
    plain data that code of the candidate's can rewrite between the judge's commands (a red-team helper dropped the
    samples and filled the snapshots after the block, round 35). Made and sent for each call alone, right after the
    call's sample is taken (``seal`` of :meth:`timing.CallTimer.time_block`, a frame of :data:`timing.SEAL_EVENT`),
    before any code of the candidate's runs again: made at the block's end from the worker's lists, a later call's
    forward or a finalizer freed with a call's outputs had rewritten an earlier call's sample (the true output's bytes
    at its key's positions: a gather, not the call's work) or layout (a transposed view passed for a fresh tensor)
    before it was sent (a red-team helper, round 36). ``None`` without samples."""
    if samples is None or _len(samples) != calls or _len(layouts) != calls or _len(changed) != calls:
        return None
    return [{"key": _str(samples[i][0]), "samples": _sample_digests(samples[i][1]), "layouts": layouts[i],
             "changed": changed[i]} for i in range(calls)]


def _warm_profiler(device: str) -> None:
    """One profiled no-op before the candidate loads: the profiler's first use costs time (on a GPU it also imports
    ``torch._dynamo``, which patches ``torch.manual_seed``), better spent before the watched set is taken."""
    from kernelgym.judge.profile import profiler

    with profiler(device):
        torch.zeros(1, device=device).add_(1)


def _settle_dynamo_patch() -> None:
    """Make now the one change that importing ``torch._dynamo`` makes to the watched objects, so that a later
    import changes nothing there. Its first import wraps ``torch.manual_seed`` in ``torch._disable_dynamo`` (when it
    is still ``torch.random.manual_seed``); honest code can import dynamo at any time (``torch.library``, custom
    ops, optimizers import it lazily), and the CPU worker no longer imports it at start-up (see
    :func:`kernelgym.judge.profile.profiler`). The wrap is lazy: it imports nothing until the wrapped function is
    called, and the judge's own seeding calls ``torch.random.manual_seed``. A torch without the wrap is left as is.
    ``tests/test_judge_helpers.py`` checks that importing dynamo afterwards leaves the watched set unchanged."""
    disable = getattr(torch, "_disable_dynamo", None)
    if disable is None or torch.manual_seed is not torch.random.manual_seed:
        return
    torch.manual_seed = disable(torch.manual_seed)
    register = getattr(getattr(torch.jit, "_builtins", None), "_register_builtin", None)
    if register is not None:  # as dynamo does, so TorchScript still knows the op
        register(torch.manual_seed, "aten::manual_seed")


class Worker:
    def __init__(self, result_fd: int, request: dict, sock_fd: int = -1):
        self.fd = result_fd
        self.sock = _socket.socket(fileno=sock_fd) if sock_fd >= 0 else None  # fds from the runner (device handover)
        self.req = request
        self.device = request["device"]
        self.task = Task.from_dict(request["task"])
        self.module = self.task.load_module(small=request["small"])
        #: the task module and every name it binds, as loaded: the judge draws every input from its ``get_inputs``
        #: (in a timed block, outside the timed interval), so a rebinding there is watched like the judge's own
        #: functions (:meth:`integrity_flags`; a red-team helper precomputed each timed call's output in a
        #: replaced ``get_inputs``)
        self._task_module, self._task_names = self.module, dict(vars(self.module))
        #: the in-place parts of the task module's functions (their code swapped keeps their identity)
        self._task_parts = {name: _function_parts(value) for name, value in self._task_names.items()}
        self.model = None
        self.timer = None
        #: the null blocks' timer (:meth:`null_block`), kept over all of them; its recorder ends at ``go``
        self.null_timer = None
        #: the late null blocks' timer (:meth:`null_block` once the candidate is loaded), unrecorded
        self.late_null_timer = None
        self.snapshots: list[tuple] = []
        #: a host sample of each snapshot, taken right after it (:func:`timing.snapshot_sample`), with its call's key;
        #: the block's key salts each call's
        self.snapshot_samples: list[tuple] = []
        self.snapshot_key = 0
        #: the layout of each snapshotted call's outputs as the forward returned them (:func:`timing.layout`)
        self.snapshot_layouts: list[tuple] = []
        self.launches = LaunchCounter()
        self.launches.install()
        #: calls handing tensor values to host code (numpy, lists, numbers), counted in every call: each forward's
        #: share goes to the runner (a trial's header, the profile's report) for the strict policy
        self.host_reads = HostReads()
        self.host_reads.install()
        if request.get("gpu_compile"):  # before any kernel runs in the interpreter (kernelgym.judge.gpu_compile)
            gpu_compile.remember_language()
        self.own_names = set(candidate_kernel_names(request["source"]))
        #: announces the compilations of ``go`` (installed before any candidate code runs)
        self.compile_pause = compile_pause.install(self.send, self._read, self._sync)

    # -- channel -------------------------------------------------------------------------------------------
    def send(self, header: dict) -> None:
        # the result channel as main() bound it, before any candidate code ran, not the instance's attribute: code that
        # pointed ``self.fd`` at a pipe of its own could rewrite every frame before passing it on (no function of the
        # judge's replaced); ``self.fd`` only where none was bound (a stand-in)
        fd = _RESULT_FD if _RESULT_FD is not None else self.fd
        taken = _reclaim_channel(fd)
        if taken is not None:
            flags = header.get("integrity_flags")
            header = {**header, "integrity_flags": (list(flags) if _type(flags) is list else []) + [taken]}
        write_frame(fd, header)

    def error(self, status: str, exc: BaseException, where: str) -> None:
        tb = "".join(traceback.format_exception(_type(exc), exc, exc.__traceback__))
        self.send({"event": Event.ERROR, "status": status, "where": where,
                   "message": f"{_type(exc).__name__}: {str(exc)[:500]}", "traceback": tb[-4000:]})

    # -- go ------------------------------------------------------------------------------------------------
    def load_candidate(self):
        """Execute the candidate's text as module ``candidate``; its ``ModelNew``, or ``None`` after an error.

        The code executed is compiled from the request's string itself (the one the static checks read); the file
        written beside it, and the line cache, only serve tracebacks and Triton's reading of kernel source."""
        source = self.req["source"]
        path = os.path.join(self.req["scratch"], "candidate.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(source)
        # lines as Python's tokenizer splits them (str.splitlines would also split at form feeds and the like)
        linecache.cache[path] = (len(source), None, io.StringIO(source, newline=None).readlines(), path)
        try:
            code = compile(source, path, "exec", dont_inherit=True)
            candidate = types.ModuleType("candidate")
            candidate.__file__ = path
            sys.modules["candidate"] = candidate
            exec(code, candidate.__dict__)  # noqa: S102 - the candidate, inside the sandbox
            return getattr(candidate, "ModelNew")
        except BaseException as exc:  # noqa: BLE001 - anything the candidate raises is its verdict
            self.error("compile_error", exc, "import")
            return None

    def load(self) -> bool:
        with self.compile_pause.active():
            return self._load()

    def _load(self) -> bool:
        self.end_null_blocks()
        cls = self.load_candidate()
        if cls is None:
            return False
        try:
            self.model = build_model(self.module, cls, self.req["init_seed"], self.device, self.task.dtype,
                                     self.task.mode)
        except BaseException as exc:  # noqa: BLE001
            self.error("runtime_error", exc, "ModelNew construction")
            return False
        launches = gpu_compile.LaunchSpecs() if self.req.get("gpu_compile") else None
        self.launches.observer = launches.note if launches is not None else None
        try:
            with torch.no_grad():
                self.model(*make_inputs(self.module, self.req["warmup_seed"], self.device))
            self._sync()
        except BaseException as exc:  # noqa: BLE001
            kind = "compile_error" if "triton" in (_type(exc).__module__ or "") and "ompil" in _type(exc).__name__ \
                else "runtime_error"
            self.error(kind, exc, "first forward")
            return False
        finally:
            self.launches.observer = None
        refused = launches.first_error() if launches is not None else None
        if refused is not None:  # runs in the interpreter, would not compile on a GPU (kernelgym.judge.gpu_compile)
            self.error("compile_error", refused, "compiling for a GPU")
            return False
        self.send({"event": Event.LOADED})
        return True

    # -- trials and the profiled forward ----------------------------------------------------------------------
    def trial(self, seed: int, outlier: int) -> bool:
        """One forward on inputs from ``seed`` (with ``outlier``'s outliers), its outputs described and sent; every
        input, nested ones too, compared whole with a copy taken before the call (``mutated_inputs``: their indices
        in :func:`~kernelgym.judge.inputs.input_leaves`' order), and scrubbed after it."""
        inputs = make_inputs(self.module, seed, self.device, outlier=outlier)
        leaves = _input_leaves(inputs)  # before the call: a nested list the forward rebuilds is not read again
        copies = [_clone(x) if _is_tensor(x) else x for x in leaves]
        held = _held_storages(leaves)  # the inputs' memory as the forward gets it (timing.layout)
        self.launches.counts.clear()
        reads = self.host_reads.count
        self.host_reads.begin(self.model)  # what the forward's factories make, and the model's state, from now
        try:
            with torch.no_grad():
                outputs = as_tuple(self.model(*inputs))
            self._sync()
        except BaseException as exc:  # noqa: BLE001
            self.error("runtime_error", exc, "trial")
            return False
        finally:
            self.host_reads.end()
        reads = self.host_reads.count - reads
        own = self.launches.own(self.own_names) if self.launches.installed else None
        mutated = [i for i, (a, b) in enumerate(zip(leaves, copies)) if _is_tensor(a) and not _unchanged(a, b)]
        sent = self.send_outputs(outputs, mutated, own, reads if self.host_reads.installed else None, inputs=leaves,
                                 held=held)
        _scrub(outputs)  # released: nothing of this call's results survives for a later call to pick up
        _scrub(leaves)
        return sent

    def profile(self, seed: int) -> bool:
        """One profiled forward: which kernels ran and whose they were (see :mod:`kernelgym.judge.profile`), then
        its outputs, compared like a trial's."""
        names = sorted(self.own_names)
        self.launches.counts.clear()
        try:
            inputs = make_inputs(self.module, seed, self.device)
            leaves = _input_leaves(inputs)  # before the call, as in a trial
            held = _held_storages(leaves)
            reads = self.host_reads.count
            self.host_reads.begin(self.model)
            try:
                report, output = profile_forward(self.model, inputs, self.device, names, self.launches,
                                                 self.host_reads)
            finally:
                self.host_reads.end()
            reads = self.host_reads.count - reads
        except BaseException as exc:  # noqa: BLE001
            self.error("runtime_error", exc, "profiled forward")
            return False
        report["candidate_kernels"] = names
        report["host_reads"] = reads if self.host_reads.installed else None
        report["interpreter_launches"] = dict(self.launches.counts)
        self.send({"event": Event.PROFILE, "report": report})
        sent = self.send_outputs(as_tuple(output), [], inputs=leaves, held=held)
        _scrub(as_tuple(output))
        _scrub(leaves)
        return sent

    def send_outputs(self, outputs: tuple, mutated: list[int], own_launches: int | None = None,
                     host_reads: int | None = None, layouts: tuple | None = None, inputs: tuple = (),
                     flags: list | None = None, held: tuple = ()) -> bool:
        """Describe ``outputs`` (with the integrity flags of this moment and, for a trial, how many launches of the
        candidate's own Triton kernels the forward made and how many calls handed tensor values to host code,
        :class:`~kernelgym.judge.profile.HostReads`), then copy each tensor into the file the runner names.
        The tensors are snapshots taken by the worker's own code or the forward's fresh results; each tensor's
        description carries its layout as the forward returned it (``layouts``, taken before a timed call's snapshot,
        else the outputs' own, against the call's ``inputs`` and their storages when the call began, ``held``:
        :func:`timing.held_storages`), which the runner checks against the reference's.
        ``flags``: integrity flags found by the caller, sent before this moment's own."""
        flags = list(flags or []) + self.integrity_flags()
        descs = []
        for k, out in enumerate(outputs):
            if _is_tensor(out):
                if _type(out) not in (_Tensor, _Parameter):
                    descs.append({"kind": "subclass", "type": _type(out).__name__})
                else:
                    shown = layouts[k] if layouts is not None and k < len(layouts) else None
                    descs.append({"kind": "tensor", **tensor_header(out), **(shown or _layout(out, inputs, held))})
            elif _type(out) in (int, float, bool) and _fits_a_float(out):
                descs.append({"kind": "scalar", "value": float(out)})
            else:  # never its type's name as the kind: a class named "scalar" passed for a number
                descs.append({"kind": "other", "type": _type(out).__name__})
        self.send({"event": Event.OUTPUTS, "descs": descs, "mutated_inputs": mutated, "integrity_flags": flags,
                   "own_launches": own_launches, "host_reads": host_reads})
        if flags:
            return True  # the runner rejects; nothing of these outputs leaves
        for out, desc in zip(outputs, descs):
            if desc["kind"] == "tensor":
                command = self._read().split(" ", 1)
                try:
                    if len(command) == 2 and command[0] == Command.SEND:
                        write_tensor(command[1], out)
                    elif command == [Command.SEND_DEVICE] and self.sock is not None:
                        write_into(self.sock, out, device_index(self.device))
                    else:
                        return False
                except BaseException as exc:  # noqa: BLE001
                    self.error("runtime_error", exc, "sending an output")
                    return False
                self.send({"event": Event.TENSOR})
        return True

    # -- timing ----------------------------------------------------------------------------------------------
    def null_block(self, calls: int, seed: int, specs: str) -> bool:
        """``null CALLS SEED SPECS``: a timed block of a forward that returns fresh, empty outputs of ``SPECS`` (the
        reference's ``describe``: tensors of a shape and dtype, or scalars). No warm-up call: the runner's clock
        spans the whole command, so the runner warms up with a block whose figures it does not use
        (:data:`kernelgym.judge.wallclock.NULL_WARMUP_BLOCKS`). Once the candidate is loaded (the late null blocks
        of the timing stage, :func:`kernelgym.judge.wallclock.late_null_overhead_ms`: its code could slow them, which
        lowers the bound, so the runner caps what they count) only under the synchronized method, unrecorded: the
        activity method's recorder is the candidate timer's from then on; each on a timer of its own, set up before a
        ``timing_ready`` frame (:meth:`_late_null_ready`) from which the runner's clock on it starts."""
        late = self.model is not None
        if late and self.req.get("timing_method", "synchronized") != "synchronized":
            return False
        allocate = _null_forward(specs, self.device)
        # the request's method, as the candidate's blocks: with the activity method one recorder spans every null
        # block, as the candidate's stage recorder spans its blocks (its per-op host cost is in both, and its start
        # lands in the warm-up block, whose figures the runner does not use). Until 2026-12-05 the null blocks ran
        # synchronized without a recorder, and on the H200 the candidate's blocks then spent more host time per call
        # than the overhead subtracted from them (docs/BENCHMARKS.md, twenty-second session)
        try:
            if late:
                timer = self._fresh_late_null_timer(allocate)
            elif self.null_timer is None:
                self.null_timer = _CallTimer(allocate, None, self.device, scrub_released=True,
                                             method=self.req.get("timing_method"))
                _made(self.null_timer)
                _record_stage(self.null_timer)
            timer = self.late_null_timer if late else self.null_timer
            timer.fn = allocate
            timer.make_args = _revealed_inputs(self.module, self.device, seed, timer)
        except BaseException as exc:  # noqa: BLE001 - the profiler failed to start: the judge's error
            self.error("runtime_error", exc, "the null block")
            return False
        if late and not self._late_null_ready():
            return True  # flagged: the runner rejects on the ready frame
        return self._timed_block(timer, calls, [], [], seed, "the null block", [], [], _snapshot_key(seed))

    def _fresh_late_null_timer(self, allocate):
        """A new timer for a late null block (``late_null_timer``), the previous one dropped first: made and set up
        inside the command, before :meth:`_late_null_ready`, so whatever the candidate's code hung on the previous
        one (a weakref callback on its forward or inputs' maker, run when they are replaced: round 45) runs here,
        outside the runner's clock, and nothing it could reach before the command is used in the block."""
        old, self.late_null_timer = self.late_null_timer, None
        if old is not None:
            _TIMERS_MADE.pop(id(old), None)
        del old
        timer = _CallTimer(allocate, None, self.device, scrub_released=True, method="synchronized")
        _made(timer)
        self.late_null_timer = timer
        return timer

    def _late_null_ready(self) -> bool:
        """The ``timing_ready`` frame of a late null block, set up and about to be timed, with the integrity flags
        of this moment (a replaced function the block calls, a thread of the candidate's); whether it had none. The
        runner's clock on the block starts when it reads this frame (``Session.null_block``): candidate code run
        before the worker read the ``null`` line (a finalizer of the collection between commands, which can peek at
        that line: round 45) or while the block was set up is outside it, and from here to the block's ``timing``
        frame only the judge's code runs, each function it calls bound at import and watched."""
        flags = self.integrity_flags()
        self.send({"event": Event.TIMING_READY, "integrity_flags": flags})
        return not flags

    def end_null_blocks(self) -> None:
        """Stop the null blocks' recorder (one profiler per process: the candidate's timing starts its own) before
        any candidate code runs; its records are not used."""
        if self.null_timer is not None:
            _stage_spans(self.null_timer)
            _TIMERS_MADE.pop(id(self.null_timer), None)  # its flush buffer (twice the L2) is not kept alive
            self.null_timer = None

    def start_timing(self, seed: int) -> bool:
        config = _timing.TimingConfig(**self.req["timing"])
        self.timer = _CallTimer(self.model, lambda i: make_inputs(self.module, call_seed(seed, i), self.device),
                                self.device, scrub_released=True, method=self.req.get("timing_method"))
        _made(self.timer)
        try:
            candidate = sys.modules.get("candidate")
            if _forget_picks(vars(candidate) if candidate is not None else None):
                # the autotune sweeps again, now that the runner holds the GPU alone for this step, and before the
                # activity method's recorder starts (the sweep's many launches are not among its records)
                _warm_up(self.timer, 1)
            _record_stage(self.timer)  # the activity method: started here, so its start-up cost is the warm-up's
            _warm_up(self.timer, config.warmup)
        except BaseException as exc:  # noqa: BLE001
            self.error("runtime_error", exc, "timing warm-up")
            return False
        self.send({"event": Event.TIMING_READY})
        return True

    def block(self, calls: int, seed: int, probe: int = -1, outlier: int = NO_OUTLIERS) -> bool:
        """Time ``calls`` calls, the first on inputs from ``seed``, each later one on inputs from a seed the runner
        sends once the call before it is sealed (:func:`_revealed_inputs`), keeping a snapshot of every call's outputs
        and which inputs it wrote into (taken outside the timed interval, by :meth:`CallTimer.time_block`), for a
        later ``check``; the frame says how many launches of the candidate's own Triton kernels each call made. Call
        ``probe`` of the block gets inputs with ``outlier``'s outliers (``Session.probe_for_block``)."""
        self.snapshots, self.changed_inputs, self.snapshot_layouts = [], [], []
        self.snapshot_samples, self.snapshot_key = [], _snapshot_key(seed)
        # the timer numbers calls over all blocks; ``seed`` is the first call's, each later one's comes when asked
        self.timer.make_args = _revealed_inputs(self.module, self.device, seed, self.timer, probe, outlier)
        return self._timed_block(self.timer, calls, self.snapshots, self.changed_inputs, seed, "timing",
                                 self.snapshot_layouts, self.snapshot_samples, self.snapshot_key)

    def _timed_block(self, timer, calls: int, keep: list, changed: list, seed: int, what: str,
                     layouts: list, samples: list | None = None, key: int | None = None) -> bool:
        """A block of ``calls`` calls of ``timer`` and its ``timing`` frame: the steps of every timed block, the
        null blocks' as the candidate's, so that the runner's clock on the null blocks holds every per-call and
        per-block step of the candidate's but the forward (the launch count after each call, the integrity flags
        of the frame); ``keep``, ``changed``, ``layouts``, ``samples`` (with their ``key``) as
        :meth:`CallTimer.time_block`'s."""
        launched, counted = [], [self.launches.own(self.own_names)]

        def count_launches():  # after each timed call, outside its interval: its own kernels' launches
            now = self.launches.own(self.own_names)
            launched.append(now - counted[0])
            counted[0] = now

        at_start = _timer_state(timer)
        #: the inputs' maker is the worker's closure: its cells (the block's seed, first index, probe) and code can be
        #: replaced in place, keeping the function the identity check sees
        maker_parts = _function_parts(getattr(timer, "make_args", None))
        fd = _RESULT_FD  # the channel as main() bound it (None: a stand-in without one, which sends no seals)

        def seal(call_key, sample, shown, wrote):  # each call's seal, made as soon as it is taken (_seals)
            made = _seals(1, [(call_key, sample)], [shown], [wrote])
            made = made[0] if _type(made) is list and _len(made) == 1 else None
            taken = _reclaim_channel(fd)  # taken during the call: the flagged seal at once (the runner rejects)
            if taken is not None:
                write_frame(fd, {"event": _SEAL_EVENT, "seal": made, "integrity_flags": [taken]})
                return _no_send
            frame = _encode_frame({"event": _SEAL_EVENT, "seal": made})  # bytes: nothing can rewrite them now

            def send():  # called once the call's inputs and outputs are dropped (time_block), right before the
                # worker waits for the next call's seed: no code of the candidate's runs in between (round 43)
                taken = _reclaim_channel(fd)  # the channel still the runner's (dup2 keeps the number: round 38)
                if taken is None:
                    _write_all(fd, frame)
                else:
                    write_frame(fd, {"event": _SEAL_EVENT, "seal": made, "integrity_flags": [taken]})
            return send

        try:
            times = _time_block(timer, calls, keep, changed, seed, count_launches, layouts, samples, key,
                                seal if fd is not None else None)
        except BaseException as exc:  # noqa: BLE001
            self.error("runtime_error", exc, what)
            return False
        flags = timer.refused_snapshots[:1] + self.integrity_flags()  # the first: seen before any snapshot
        if _timer_changed(timer, at_start) or _parts_changed(getattr(timer, "make_args", None), maker_parts):
            flags.append(["monkeypatch", "the candidate changed the judge's timer (its inputs' maker, forward, L2 "
                                         "flush, device or method) while it timed"])
        self.send({"event": Event.TIMING, "times_ms": times, "integrity_flags": flags,
                   "own_launches": launched if self.launches.installed else None,
                   "step_ms": _small_steps(getattr(timer, "step_ms", None))})
        return True

    def check(self, index: int) -> bool:
        """The outputs of timed call ``index`` of the last block, and which of its inputs the call wrote into (from
        samples taken before and after it, :meth:`CallTimer.time_block`)."""
        if not 0 <= index < len(self.snapshots):
            return False
        # GPU work still queued (code of the candidate's may have run since the block, between the judge's
        # commands) ends before the answer, inside the runner's clock on it; then the snapshot must still hold the
        # bytes sampled right after it was taken (timing.snapshot_sample)
        _settle(self.device)
        snapshot = self.snapshots[index]
        flags = []
        # a sample is taken of every snapshot: one missing was dropped (the runner checks the seal sent with the
        # block's times in any case, Session._receive_and_check)
        if index >= len(self.snapshot_samples) or \
                _snapshot_changed(snapshot, self.snapshot_samples[index][1], self.snapshot_samples[index][0]):
            flags.append(["monkeypatch", f"the judge's copy of timed call {index}'s outputs (of its block) was changed "
                                         f"after the call: work done outside the timed interval"])
        return self.send_outputs(as_tuple(snapshot), self.changed_inputs[index],
                                 layouts=self.snapshot_layouts[index], flags=flags)

    def spans(self) -> bool:
        """The activity method's span of every timed call so far, by its index over all blocks (``None`` where the
        device recorded none, and for all of them under the synchronized method), recorded since ``time``."""
        try:
            spans = _stage_spans(self.timer)
        except BaseException as exc:  # noqa: BLE001
            self.error("runtime_error", exc, "reading the timed calls' device activity")
            return False
        self.send({"event": Event.SPANS, "spans_ms": spans, "integrity_flags": self.integrity_flags()})
        return True

    # -- helpers -------------------------------------------------------------------------------------------
    def _sync(self) -> None:
        if self.device.startswith("cuda"):
            torch.cuda.synchronize()

    def integrity_flags(self) -> list[list[str]]:
        """Flags for replaced judge functions, active torch function/dispatch modes and the candidate's threads."""
        flags = []
        for path, original in _WATCHED.items():
            if _type(path) is not str:  # ("parts", ...): read with its function; ("class", cls): its namespace
                if path[0] == "class" and _namespace_changed(path[1], original):
                    flags.append(["monkeypatch", f"the candidate changed the class "
                                                 f"{path[1].__module__}.{path[1].__qualname__}"])
                continue
            try:
                now = _resolve(path)
            except Exception:  # noqa: BLE001 - deleted attribute counts as patched
                now = None
            if now is not original or _parts_changed(now, _WATCHED.get(("parts", path))):
                flags.append(["monkeypatch", f"the candidate replaced {path}"])
        task_names = getattr(self, "_task_names", None)
        if task_names is not None:
            module = self._task_module
            now = vars(module)
            parts = self._task_parts
            changed = [name for name, value in task_names.items() if now.get(name, _MISSING) is not value
                       or _parts_changed(value, parts.get(name))]
            if self.module is not module:
                changed.insert(0, "the module itself")
            if changed:
                flags.append(["monkeypatch", f"the candidate changed the task's module: {', '.join(changed[:3])}"])
        if any(depth() for depth in _mode_depths):
            flags.append(["dispatch_mode", "a torch function or dispatch mode was active when the outputs were read"])
        # every thread that runs Python, also one started with _thread (which threading does not list): its frames
        names = {t.ident: t.name for t in _threading.enumerate()}
        extra = [names.get(ident, f"thread {ident}") for ident in _current_frames() if ident not in _BASE_THREADS]
        if extra:
            flags.append(["background_thread", f"the candidate left thread(s) running: {', '.join(extra[:3])}"])
        return flags

    def _read(self) -> str:
        return _readline().strip()

    def serve(self) -> None:
        """Obey commands until ``stop``, end of input, or a failed step (the runner decides what follows)."""
        handlers = {
            Command.NULL: lambda a: self.null_block(int(a[0]), int(a[1]), a[2]),
            Command.GO: lambda a: self.load(),
            Command.TRIAL: lambda a: self.trial(int(a[0]), int(a[1])),
            Command.PROFILE: lambda a: self.profile(int(a[0])),
            Command.TIME: lambda a: self.start_timing(int(a[0])),
            Command.BLOCK: lambda a: self.block(int(a[0]), int(a[1]), *(int(v) for v in a[2:4])),
            Command.CHECK: lambda a: self.check(int(a[0])),
            Command.SPANS: lambda a: self.spans(),
            Command.NEXT: lambda a: True,
        }
        # The cyclic collector stays off in every forward, trials and timed calls alike (timed blocks need it off:
        # timing.quiet_for_timing), so no forward can tell them apart by it (a red-team candidate did, from a
        # finalizer run by the collector); young cycles are collected between commands instead, outside any call.
        if self.req.get("mode") == "witness":  # null blocks only, never a candidate (kernelgym.judge.witness)
            handlers = {Command.NULL: handlers[Command.NULL], Command.NEXT: handlers[Command.NEXT]}
        _gc_collect, _gc_disable = _gc.collect, _gc.disable
        _gc_disable()
        while True:
            verb, *args = self._read().split() or [Command.STOP]
            handler = handlers.get(verb)
            if handler is None or not handler(args):
                return
            _gc_collect(1)


def _harden(request: dict) -> None:
    """Resource limits for this process and its children (documented in docs/SECURITY.md)."""
    import resource

    limits = request.get("limits", {})
    for name, value in (("RLIMIT_FSIZE", limits.get("file_bytes")), ("RLIMIT_CPU", limits.get("cpu_s")),
                        ("RLIMIT_AS", limits.get("address_space_bytes")), ("RLIMIT_CORE", 0)):
        if value is None:
            continue
        try:
            resource.setrlimit(getattr(resource, name), (int(value), int(value)))
        except (ValueError, OSError):
            pass


#: the CPU priority (``nice``) of a CUDA prebuild's worker and of the compilers it starts: a build keeps a few cores
#: busy for a minute (26 at once held the H200 machine's 16 for 86 s), and a worker timed meanwhile may wait for a
#: CPU behind them, time the runner's clock on its blocks counts as the candidate's (an honest CUDA solution timed
#: beside those 26 builds was rejected by that clock: docs/BENCHMARKS.md, twenty-second session; the cause is not
#: measured yet). At 10 a build still gets about a tenth of a core that a CPU-bound process at the default priority
#: wants, and every idle core.
BUILD_NICENESS = 10


def _lower_priority(niceness: int) -> None:
    """This process's ``nice`` raised to ``niceness`` (never lowered: that needs a privilege); children inherit it."""
    try:
        if os.getpriority(os.PRIO_PROCESS, 0) < niceness:
            os.setpriority(os.PRIO_PROCESS, 0, niceness)
    except OSError:  # pragma: no cover - a platform without priorities: the build runs as it is
        pass


def main() -> int:
    import faulthandler
    import signal

    result_fd = int(sys.argv[1])
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # the runner asks where a stage is stuck
    _warm_profiler("cpu")  # a worker started ahead does this while it waits
    warmed = os.environ.get("KERNELGYM_WARM_DEVICE", "")
    if warmed.startswith("cuda"):  # the judge's GPU: the CUDA context and the profiler's GPU side, before the request
        _warm_profiler(warmed)
    line = sys.stdin.readline()  # a worker started ahead waits here, having run nothing of any candidate
    if not line:
        return 0
    request = json.loads(line)
    if request.get("mode") == "build":
        _lower_priority(BUILD_NICENESS)
    os.environ.update(request.get("env", {}))  # candidate-specific settings (build directory, CUDA arch list)
    _harden(request)
    bounded_memory = ()
    if os.environ.get("TRITON_INTERPRET") == "1":
        from kernelgym.judge import interpreter_fixes

        if "memory_bounds" in interpreter_fixes.apply():
            bounded_memory = interpreter_fixes.MEMORY_BOUNDS_PATHS
    from kernelgym.judge.autotune import bound_autotune

    # the interpreter has no GPU to benchmark configs on (Triton's sweep fails there): the first config is used
    interpreting = os.environ.get("TRITON_INTERPRET") == "1"
    bound_autotune(1 if interpreting else int(request.get("max_autotune_configs", 8)))
    global _RESULT_FD, _RESULT_ID, _RESULT_SPARE
    _RESULT_FD = result_fd  # before the watch below, and before any candidate code runs
    _RESULT_ID, _RESULT_SPARE = _channel_id(result_fd), _dup(result_fd)  # (_reclaim_channel)
    worker = Worker(result_fd, request, int(sys.argv[2]) if len(sys.argv) > 2 else -1)
    if worker.device.startswith("cuda") and worker.device != warmed:
        _warm_profiler(worker.device)  # the GPU's side of the profiler, when it was not warmed on this device
    _settle_dynamo_patch()
    _watch(_watched(tuple(worker.launches.installed) + tuple(worker.host_reads.installed) + tuple(bounded_memory)))
    _BASE_THREADS.update(t.ident for t in _threading.enumerate())
    _BASE_THREADS.update(_current_frames())
    _BASE_HANDLERS.update(_signal_handlers())
    worker.send({"event": Event.READY})
    if request.get("mode") == "build":  # CUDA prebuild on a CPU worker: execute the text (load_inline builds)
        if worker._read() == Command.GO and worker.load_candidate() is not None:
            worker.send({"event": Event.LOADED})
        return 0
    worker.serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
