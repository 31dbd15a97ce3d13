"""Wire format between the trusted runner and the untrusted worker.

A frame is ``4-byte big-endian length | JSON object``. Frames are JSON, never pickles, so reading one can never
execute code on the trusted side. Output tensors do not travel in frames: they go through files the runner creates
(:mod:`kernelgym.judge.transfer`), described by ``{"dtype", "shape"}`` in the ``trial`` frame.
"""

from __future__ import annotations

import json
import os
import select
import struct
import time
from typing import Any

MAX_HEADER = 1 << 20

class ProtocolError(RuntimeError):
    """The peer sent something that is not a valid frame."""


class Deadline(TimeoutError):
    """No complete frame arrived before the deadline."""


def encode_frame(header: dict[str, Any]) -> bytes:
    raw = json.dumps(header).encode()
    return struct.pack(">I", len(raw)) + raw


def write_frame(fd: int, header: dict[str, Any]) -> None:
    data = memoryview(encode_frame(header))
    while data:
        written = os.write(fd, data)
        data = data[written:]


class FrameReader:
    """Reads frames from a file descriptor with deadlines (trusted side)."""

    def __init__(self, fd: int):
        self.fd = fd
        self._buf = bytearray()
        self.eof = False

    def _fill(self, need: int, deadline: float) -> None:
        while len(self._buf) < need:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Deadline()
            ready, _, _ = select.select([self.fd], [], [], min(remaining, 0.5))
            if not ready:
                continue
            chunk = os.read(self.fd, max(need - len(self._buf), 1 << 20))
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
        except ValueError as exc:
            raise ProtocolError("frame header is not JSON") from exc
        if not isinstance(header, dict):
            raise ProtocolError("malformed frame header")
        return header


def tensor_header(tensor) -> dict[str, Any]:
    name = str(tensor.dtype).replace("torch.", "")
    return {"dtype": name, "shape": list(tensor.shape)}
