"""Moving a candidate's output tensors from the worker to the runner through shared files, not the pipe.

Outputs of the full-size tasks reach several GB (a 12288 x 100000 fp32 activation is 4.9 GB). Through the result
pipe every byte was copied about eight times and an honest kernel ran out of its stage's time. Instead:

1. The runner creates an empty file of exactly the output's size (:class:`OutputFile`): in ``/dev/shm`` when that
   tmpfs has room, else in the worker's scratch directory. The runner creates and sizes it, so the worker's
   file-size limit (``RLIMIT_FSIZE``) never applies, and keeps its own descriptor: whatever the worker later does
   to the path (unlink, replace, symlink) does not change what the runner reads.
2. The worker maps the file and copies the tensor's bytes straight into it (:func:`write_tensor`): one
   device-to-host copy, no serialisation.
3. The runner reads the file through its descriptor with ``preadv`` into a fresh buffer (never ``mmap``: a worker
   that truncated the file would otherwise crash the runner with SIGBUS), checks the size against the shape it
   expects (:func:`tensor_from_raw`), and deletes the file.

Nothing read is ever unpickled or executed: the bytes become a tensor of the dtype and shape the runner expected.
"""

from __future__ import annotations

import mmap
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from kernelgym.judge.protocol import ProtocolError

SHM = Path("/dev/shm")
#: headroom kept free on /dev/shm before it is chosen for a transfer
SHM_MARGIN_BYTES = 1 << 30
#: bytes per preadv call (Linux reads at most about 2 GiB at once)
READ_CHUNK = 1 << 30

# dtype names that may cross over, with their element sizes
DTYPES = {"float32": 4, "float16": 2, "bfloat16": 2, "float64": 8, "int8": 1, "uint8": 1, "int16": 2,
          "int32": 4, "int64": 8, "bool": 1, "float8_e4m3fn": 1, "float8_e5m2": 1, "complex64": 8}


def expected_nbytes(desc: dict[str, Any]) -> int:
    """Bytes of a tensor described as ``{"dtype", "shape"}``; :class:`ProtocolError` for anything else."""
    name, shape = desc.get("dtype"), desc.get("shape")
    if name not in DTYPES or not isinstance(shape, list) or not all(isinstance(s, int) and s >= 0 for s in shape):
        raise ProtocolError(f"unsupported tensor description {name!r} {shape!r}")
    numel = 1
    for s in shape:
        numel *= s
    return numel * DTYPES[name]


def transfer_dir(xfer: Path, scratch: Path, nbytes: int) -> Path:
    """Where a transfer of ``nbytes`` goes: the worker's transfer folder (in ``/dev/shm``) when that tmpfs has room
    to spare, else its scratch folder (both bound writable into its sandbox)."""
    try:
        if str(xfer).startswith(str(SHM)) and shutil.disk_usage(xfer).free >= nbytes + SHM_MARGIN_BYTES:
            return xfer
    except OSError:
        pass
    return scratch


class OutputFile:
    """A file the runner creates for one output (trusted side); ``with`` deletes it, whatever happened.

    Attributes:
        path: where the worker must write (sent to it in the ``send`` command).
        nbytes: the exact size expected.
    """

    def __init__(self, directory: Path, nbytes: int):
        self.nbytes = nbytes
        fd, name = tempfile.mkstemp(prefix="kernelgym-out-", dir=directory)
        self.fd, self.path = fd, Path(name)
        try:
            os.ftruncate(fd, nbytes)
        except OSError:
            self.close()
            raise

    def read(self):
        """The file's bytes as a flat uint8 tensor; :class:`ProtocolError` when the worker left it short or long."""
        import torch

        if os.fstat(self.fd).st_size != self.nbytes:
            raise ProtocolError("the output file's size does not match the output's shape")
        raw = torch.empty(self.nbytes, dtype=torch.uint8)
        view = memoryview(raw.numpy())
        pos = 0
        while pos < self.nbytes:
            got = os.preadv(self.fd, [view[pos:pos + READ_CHUNK]], pos)
            if got <= 0:
                raise ProtocolError("the output file was cut short while it was read")
            pos += got
        return raw

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        try:
            self.path.unlink()
        except OSError:
            pass

    def __enter__(self) -> "OutputFile":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _bind_tensor_methods() -> dict:
    """The tensor functions :func:`write_tensor` uses, bound when this module is imported: in the worker that is
    before any candidate code runs, so a candidate that later replaces ``torch.Tensor.contiguous`` (say) cannot get
    its code run while its output is copied out."""
    import torch

    t = torch.Tensor
    return {"detach": t.detach, "contiguous": t.contiguous, "reshape": t.reshape, "numel": t.numel,
            "element_size": t.element_size, "view": t.view, "copy_": t.copy_, "frombuffer": torch.frombuffer,
            "uint8": torch.uint8, "resolve_conj": t.resolve_conj, "resolve_neg": t.resolve_neg}


_T = _bind_tensor_methods()


def flat_bytes(tensor) -> tuple:
    """``tensor``'s bytes as a flat uint8 view and their count (worker side; only functions bound at import). A lazy
    conjugate or negative view (``x.conj()`` of a complex output, ``torch._neg_view``) is materialised first: its
    bytes are not its values."""
    flat = _T["reshape"](_T["contiguous"](_T["resolve_neg"](_T["resolve_conj"](_T["detach"](tensor)))), -1)
    return _T["view"](flat, _T["uint8"]), _T["numel"](flat) * _T["element_size"](flat)


def write_tensor(path: str, tensor) -> int:
    """Copy ``tensor``'s bytes into the runner's file at ``path`` (worker side); returns the bytes written.

    The file must already exist with exactly the tensor's size (the runner made it); it is mapped and filled, so
    no file grows here. Only functions bound at import are called (:func:`_bind_tensor_methods`).
    """
    raw, nbytes = flat_bytes(tensor)
    fd = os.open(path, os.O_RDWR | getattr(os, "O_NOFOLLOW", 0))
    try:
        if os.fstat(fd).st_size != nbytes:
            raise ValueError(f"the runner's output file has {os.fstat(fd).st_size} bytes, the output {nbytes}")
        if nbytes == 0:
            return 0
        with mmap.mmap(fd, nbytes) as mm:
            dst = _T["frombuffer"](mm, dtype=_T["uint8"])
            _T["copy_"](dst, raw)
            del dst
    finally:
        os.close(fd)
    return nbytes


def tensor_from_raw(desc: dict[str, Any], raw):
    """Rebuild a tensor of ``desc``'s dtype and shape from a flat uint8 tensor, checking the size (trusted side)."""
    import torch

    nbytes = expected_nbytes(desc)
    if raw.numel() != nbytes:
        raise ProtocolError("tensor payload size does not match its shape")
    name, shape = desc["dtype"], desc["shape"]
    if nbytes == 0:
        return torch.empty(shape, dtype=getattr(torch, name))
    if name == "bool":
        return raw.to(torch.bool).reshape(shape)
    return raw.view(getattr(torch, name)).reshape(shape)
