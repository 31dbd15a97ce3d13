"""The protocol between the trusted runner and the untrusted worker: the stage table, the messages, the wire format.

The stage table (:data:`STAGES`) is the one description of an evaluation's stages, in the order they run, with
the profile field that bounds each and the statuses it can end in; the runner (:mod:`.session`) and the docs use
it. The runner drives: it sends one :class:`Command` line at a time on the worker's stdin and reads one
:class:`Event` frame back; the worker never announces stages, so it cannot reorder, repeat or extend them.

A frame is ``4-byte big-endian length | JSON object``. Frames are JSON, never pickles, so reading one can never
execute code on the trusted side. Output tensors do not travel in frames: they go through files the runner creates
(:mod:`kernelgym.judge.transfer`) or, on a GPU with the handover turned on, device memory the runner creates and
lends (:mod:`kernelgym.judge.device_transfer`), described by ``{"dtype", "shape"}`` in the ``outputs`` frame.
"""

from __future__ import annotations

import json
import os
import select
import struct
import time
from dataclasses import dataclass
from typing import Any

MAX_HEADER = 1 << 20
#: bytes a read of the result channel asks for beyond what the frame needs. ``os.read`` allocates what it asks for:
#: asking for 1 MiB took 17 us a read against 1.1 us for 64 KiB, for frames of 200 bytes (this project's CPU
#: machine); an evaluation reads its channel about 40 times on the CPU
READ_CHUNK = 1 << 16


@dataclass(frozen=True)
class Stage:
    """One stage: ``limit`` names the :class:`~kernelgym.judge.profiles.EvalProfile` field with its time limit
    (``None``: on the trusted side, not limited); ``fails_as`` the statuses it can end in."""

    name: str
    limit: str | None
    fails_as: tuple[str, ...]
    what: str


#: every stage, in the order it runs; a stage runs at most once (``recheck`` after ``timing``)
STAGES: tuple[Stage, ...] = (
    Stage("format", None, ("compile_error",), "extract the program from the text"),
    Stage("static", None, ("compile_error", "rejected"), "static guards on the very text that will run"),
    Stage("startup", "startup_timeout_s", ("crashed",), "a sandboxed worker imports torch and Triton"),
    Stage("compile", "compile_timeout_s", ("compile_error", "runtime_error", "timeout"),
          "execute the text, build ModelNew, one warm-up forward"),
    Stage("correctness", "correctness_timeout_s", ("incorrect", "runtime_error", "timeout", "rejected"),
          "trials on fresh secret seeds (standard, outlier), then a profiled forward, all compared here"),
    Stage("timing", "timing_timeout_s", ("rejected", "incorrect", "runtime_error", "timeout"),
          "candidate blocks (one call of each compared) alternating with reference blocks, the worker frozen"),
    Stage("recheck", "correctness_timeout_s", ("incorrect",), "trials again after timing"),
)
STAGE_NAMES = tuple(stage.name for stage in STAGES)
WORKER_STAGES = STAGE_NAMES[2:]


def stage(name: str) -> Stage:
    return STAGES[STAGE_NAMES.index(name)]


class Command:
    """Lines the runner sends (``VERB args...``)."""

    NULL = "null"              # null CALLS SEED SPECS: before go, a timed block of a forward that only allocates
                               # outputs of SPECS (JSON), every other step as in a block (its seeds as a
                               # block's): the per-call overhead
    GO = "go"                  # load the candidate: execute the text, build, warm up
    TRIAL = "trial"            # trial SEED OUTLIER(0|1): one forward on fresh inputs, then its outputs
    PROFILE = "profile"        # profile SEED: one profiled forward, its report, then its outputs
    TIME = "time"              # time SEED: warm up the timer
    BLOCK = "block"            # block CALLS SEED [PROBE OUTLIER]: time CALLS calls, snapshot each output; call
                               # PROBE gets OUTLIER's outliers in its inputs. SEED is the first call's input seed;
                               # each later call's comes as SEED_NEXT once the call before it is sealed
    SEED_NEXT = "seed"         # seed SEED: the input seed of a block's next call (a ``block``'s or a ``null``'s),
                               # sent by the runner on each call's seal but the last (kernelgym.judge.inputs.call_seed)
    CHECK = "check"            # check INDEX: the snapshot of that call of the last block
    SPANS = "spans"            # spans: the device activity spans of every timed call (kernelgym.judge.activity)
    SEND = "send"              # send PATH: write the next output tensor into the runner's file
    SEND_DEVICE = "sendgpu"    # sendgpu: write it into the runner's device buffer, whose fd comes on the fd socket
    NEXT = "next"              # carry on (after an outputs exchange)
    RESUME = "resume"          # compile on: the runner holds the GPU again (kernelgym.judge.compile_pause)
    STOP = "stop"              # stop now


class Event:
    """Frames the worker sends (``{"event": NAME, ...}``)."""

    READY = "ready"            # imported torch; waiting for the request's go
    LOADED = "loaded"          # the candidate is built and warmed up
    COMPILING = "compiling"    # during go: synchronised, compiling a kernel on the CPU (kernelgym.judge.compile_pause)
    COMPILED = "compiled"      # that compilation ended; waiting for resume
    OUTPUTS = "outputs"        # {"descs": [...], "mutated_inputs": [...], "integrity_flags": [...]}
    TENSOR = "tensor"          # one output written into the runner's file
    PROFILE = "profile"        # {"report": {...}}
    TIMING_READY = "timing_ready"
    TIMING = "timing"          # {"times_ms": [...], "integrity_flags": [...]}
    SPANS = "spans"            # {"spans_ms": [ms or null per timed call], "integrity_flags": [...]}
    ERROR = "error"            # {"status", "where", "message", "traceback"}

class ProtocolError(RuntimeError):
    """The peer sent something that is not a valid frame."""


class Deadline(TimeoutError):
    """No complete frame arrived before the deadline."""


def encode_frame(header: dict[str, Any], _dumps=json.dumps, _pack=struct.pack) -> bytes:
    """A frame: the JSON header's length (4 bytes, big-endian), then the header. What it calls is bound when it is
    defined (default arguments), as in :func:`write_frame`."""
    raw = _dumps(header).encode()
    return _pack(">I", len(raw)) + raw


def write_frame(fd: int, header: dict[str, Any], _encode=encode_frame, _write=os.write) -> None:
    """Write one frame. The encoder and the write are bound when this is defined, not looked up when it runs: in
    the worker, code that replaced ``protocol.encode_frame`` rewrote every timing frame the watched ``write_frame``
    sent (a sixth red-team helper)."""
    data = memoryview(_encode(header))
    while data:
        written = _write(fd, data)
        data = data[written:]


class FrameReader:
    """Reads frames from a file descriptor with deadlines (trusted side)."""

    def __init__(self, fd: int):
        self.fd = fd
        self._buf = bytearray()
        self.eof = False

    def _fill(self, need: int, deadline: float) -> None:
        # poll, not select: select cannot wait on a descriptor numbered 1024 or more (a busy runner has many)
        poller = select.poll()
        poller.register(self.fd, select.POLLIN)
        while len(self._buf) < need:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Deadline()
            ready = poller.poll(min(remaining, 0.5) * 1000)
            if not ready:
                continue
            chunk = os.read(self.fd, max(need - len(self._buf), READ_CHUNK))
            if not chunk:
                self.eof = True
                raise EOFError("the worker closed its result channel")
            self._buf += chunk

    def _take(self, n: int) -> bytes:
        out = bytes(self._buf[:n])
        del self._buf[:n]
        return out

    def read_header(self, deadline: float) -> dict[str, Any]:
        """The next frame."""
        self._fill(4, deadline)
        (length,) = struct.unpack(">I", bytes(self._buf[:4]))
        if length > MAX_HEADER:
            raise ProtocolError(f"frame header of {length} bytes")
        self._fill(4 + length, deadline)
        self._take(4)
        try:
            header = json.loads(self._take(length))
        except (ValueError, RecursionError) as exc:  # RecursionError: nesting deeper than the parser's stack
            raise ProtocolError("frame header is not JSON") from exc
        if not isinstance(header, dict):
            raise ProtocolError("malformed frame header")
        return header


def tensor_header(tensor) -> dict[str, Any]:
    name = str(tensor.dtype).replace("torch.", "")
    return {"dtype": name, "shape": list(tensor.shape)}
