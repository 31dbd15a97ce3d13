"""Each evaluation thread's own CUDA stream for the runner's untimed GPU work.

A pool evaluates several candidates at once in one runner process, one thread each (:class:`~kernelgym.evaluators.
ThreadJudges`). On torch's default stream every thread's work runs in one queue, so a thread waiting for its own
small copy (the device handover's take, a comparison's result) waits for whatever the other threads queued before
it: their references' forwards, their comparisons of multi-GB outputs. On the H200 that wait was most of batch B's
correctness stage (``handover_take``, median 1.16 s of 1.25 s per evaluation, docs/BENCHMARKS.md).

Contract:

- :func:`own` runs the block on the calling thread's stream (made once per thread and device) and waits for that
  stream when the block ends, however it ends: nothing the block queued is still running afterwards, so tensors it
  freed cannot be handed to another stream's allocation while a kernel still reads them.
- :func:`default` runs the block on the device's default stream (timing: the eager reference is timed there, as
  before and as other benchmarks time it), waiting for the thread's stream before and for the default stream after.
- :func:`settle` waits for the current stream only. Work shared with other threads (a batch plan's reference
  outputs) is settled before it is published, so a reader on another stream never sees it half-written.
- On the CPU all three do nothing.
"""

from __future__ import annotations

import contextlib
import threading

_LOCAL = threading.local()


def _is_cuda(device: str) -> bool:
    return str(device).startswith("cuda")


def _thread_stream(device: str):
    import torch

    streams = getattr(_LOCAL, "streams", None)
    if streams is None:
        streams = _LOCAL.streams = {}
    index = torch.device(device).index
    index = torch.cuda.current_device() if index is None else index
    if index not in streams:
        streams[index] = torch.cuda.Stream(device=index)
    return streams[index]


@contextlib.contextmanager
def own(device: str):
    """The block's GPU work on this thread's own stream of ``device``; that stream waited for at the end."""
    if not _is_cuda(device):
        yield
        return
    import torch

    stream = _thread_stream(device)
    try:
        with torch.cuda.stream(stream):
            yield
    finally:
        stream.synchronize()


@contextlib.contextmanager
def default(device: str):
    """The block's GPU work on ``device``'s default stream, after this thread's stream's work has finished."""
    if not _is_cuda(device):
        yield
        return
    import torch

    torch.cuda.current_stream(device).synchronize()
    stream = torch.cuda.default_stream(device)
    try:
        with torch.cuda.stream(stream):
            yield
    finally:
        stream.synchronize()


def settle(device: str) -> None:
    """Wait for the GPU work queued so far on the current stream of ``device`` (nothing on the CPU)."""
    if _is_cuda(device):
        import torch

        torch.cuda.current_stream(device).synchronize()
