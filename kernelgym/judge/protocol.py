"""Wire format between the trusted runner and the untrusted worker.

A frame is ``4-byte big-endian header length | JSON header | payload``; the header's ``nbytes`` gives the payload
length (0 when absent). Tensors travel as raw bytes plus ``{"dtype", "shape"}`` in the header, never as pickles, so
reading a frame can never execute code on the trusted side.
"""

from __future__ import annotations

import json
import os
import select
import struct
import time
from typing import Any

MAX_HEADER = 1 << 20

# dtype names that may cross the wire, with their element sizes
_DTYPES = {"float32": 4, "float16": 2, "bfloat16": 2, "float64": 8, "int8": 1, "uint8": 1, "int16": 2,
           "int32": 4, "int64": 8, "bool": 1, "float8_e4m3fn": 1, "float8_e5m2": 1, "complex64": 8}


class ProtocolError(RuntimeError):
    """The peer sent something that is not a valid frame."""


class Deadline(TimeoutError):
    """No complete frame arrived before the deadline."""


def encode_frame(header: dict[str, Any], payload: bytes | memoryview = b"") -> bytes:
    header = dict(header, nbytes=len(payload))
    raw = json.dumps(header).encode()
    return struct.pack(">I", len(raw)) + raw + bytes(payload)


def write_frame(fd: int, header: dict[str, Any], payload: bytes | memoryview = b"") -> None:
    data = memoryview(encode_frame(header, payload))
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
        """The next frame's header; its payload must then be read or skipped with :meth:`read_payload`."""
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
        if not isinstance(header, dict) or not isinstance(header.get("nbytes", 0), int) or header.get("nbytes", 0) < 0:
            raise ProtocolError("malformed frame header")
        return header

    def read_payload(self, header: dict[str, Any], deadline: float) -> bytes:
        n = header.get("nbytes", 0)
        self._fill(n, deadline)
        return self._take(n)


def tensor_header(tensor) -> dict[str, Any]:
    name = str(tensor.dtype).replace("torch.", "")
    return {"dtype": name, "shape": list(tensor.shape)}


def tensor_to_bytes(tensor) -> bytes:
    """Raw bytes of a tensor, moved to CPU and made contiguous (worker side)."""
    import torch

    flat = tensor.detach().to("cpu").contiguous().reshape(-1)
    if flat.dtype == torch.bool:
        flat = flat.to(torch.uint8)
    return flat.view(torch.uint8).numpy().tobytes()


def tensor_from_bytes(header: dict[str, Any], payload: bytes):
    """Rebuild a tensor from :func:`tensor_header` data and raw bytes; validates sizes (trusted side)."""
    import torch

    name = header.get("dtype")
    shape = header.get("shape")
    if name not in _DTYPES or not isinstance(shape, list) or not all(isinstance(s, int) and s >= 0 for s in shape):
        raise ProtocolError(f"unsupported tensor description {name!r} {shape!r}")
    numel = 1
    for s in shape:
        numel *= s
    if numel * _DTYPES[name] != len(payload):
        raise ProtocolError("tensor payload size does not match its shape")
    if numel == 0:
        return torch.empty(shape, dtype=getattr(torch, name))
    raw = torch.frombuffer(bytearray(payload), dtype=torch.uint8)
    if name == "bool":
        return raw.to(torch.bool).reshape(shape)
    return raw.view(getattr(torch, name)).reshape(shape)
