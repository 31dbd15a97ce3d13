"""Worker side of the compile pause: Triton compiles a candidate's kernels without holding the GPU.

A Triton kernel compiles at its first launch, inside the candidate's first forward, which the runner holds the GPU
for (a *shared* hold, step ``build``). Compiling takes 1.5-2.5 s of CPU per kernel and no GPU, but while a shared
step is in flight every timer of every other evaluation waits for it to drain: on the H200, 98 of the 107 s that
timers of a 96-candidate batch spent draining were spent behind ``build`` steps. So while the worker serves ``go``,
every compilation on its main thread is announced and the hold is given back for it:

1. the worker synchronises its device (none of its work is left on the GPU), sends ``compiling`` and compiles;
2. the runner, on ``compiling``, gives its shared hold back and waits for ``compiled`` (the compilation's time runs
   on the compile stage's clock, as before: it is the candidate's cost);
3. the worker, compiled, sends ``compiled`` and waits for ``resume``, which the runner sends once it holds the GPU
   again (waiting for it moves the deadlines on, like every wait for the GPU).

Triton 3.6 also builds a C launcher with the host compiler (gcc) for each new kernel signature at its first
launch; that is paused the same way (:data:`COMPILE_FUNCTIONS`).

The pause is an optimisation the trusted side grants, not something it relies on: a candidate that replaces
:func:`triton.compiler.compile` only compiles under the hold, as before, and one that forges ``compiling`` gains
GPU time outside a hold, which a thread of its own has anyway (docs/SECURITY.md: work outside the holds). The
runner bounds the number of pauses per build (:data:`kernelgym.judge.session.MAX_COMPILE_PAUSES`).

Compilations on other threads (Triton's asynchronous compile mode, a candidate's thread) and outside ``go`` are not
paused: the runner expects the frames only while it waits for ``loaded``.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Callable

from kernelgym.judge.protocol import Command, Event

_main_thread = threading.main_thread()


class CompilePause:
    """Wraps compile functions (:meth:`wrap`) so that, while :meth:`active`, each call on the main thread is announced
    as above.

    ``send`` writes one frame to the runner, ``read`` returns the runner's next command line, ``sync`` waits for
    the worker's device work. A compilation that raises still ends its pause (``compiled``, then ``resume``) before
    the exception goes on to the caller. A line other than ``resume`` while paused means the runner has given up
    on the worker: :class:`SystemExit` ends it. A compilation inside another one is not announced again."""

    def __init__(self, send: Callable[[dict], None], read: Callable[[], str], sync: Callable[[], None]):
        self.send, self.read, self.sync = send, read, sync
        self._active = False

    @contextlib.contextmanager
    def active(self):
        """Pause for every compilation on the main thread inside the block (the worker's ``go``)."""
        self._active = True
        try:
            yield
        finally:
            self._active = False

    def wrap(self, original: Callable) -> Callable:
        """``original`` with its calls announced while :meth:`active`."""
        def paused(*args, **kwargs):
            return self._call(original, args, kwargs)

        paused.__wrapped__ = original
        return paused

    def _call(self, original: Callable, args: tuple, kwargs: dict):
        if not self._active or threading.current_thread() is not _main_thread:
            return original(*args, **kwargs)
        self._active = False
        try:
            self.sync()
            self.send({"event": Event.COMPILING})
            try:
                return original(*args, **kwargs)
            finally:
                self.send({"event": Event.COMPILED})
                line = self.read().strip()
                if line != Command.RESUME:
                    raise SystemExit(f"the runner sent {line!r} during a compile pause")
        finally:
            self._active = True


#: where Triton compiles, as ``(module, attribute)``: a kernel (looked up by a ``@triton.jit`` function when it first
#: runs on a device, Triton 3.6 and 3.9) and, in Triton 3.6's CUDA driver, the C launcher of each kernel signature,
#: built with the host compiler at the kernel's first launch (Triton 3.9 has one launcher for all kernels)
COMPILE_FUNCTIONS = (("triton.compiler", "compile"), ("triton.backends.nvidia.driver", "compile_module_from_src"))


def install(send: Callable[[dict], None], read: Callable[[], str], sync: Callable[[], None]) -> CompilePause:
    """Put the functions of :data:`COMPILE_FUNCTIONS` that exist here behind one :class:`CompilePause`: call before
    any of the candidate's kernels runs. Without Triton it wraps nothing, and nothing is ever announced."""
    import importlib

    pause = CompilePause(send, read, sync)
    for module_name, name in COMPILE_FUNCTIONS:
        try:
            module = importlib.import_module(module_name)
        except ImportError:  # no Triton, or no CUDA backend in it
            continue
        if callable(getattr(module, name, None)):
            setattr(module, name, pause.wrap(getattr(module, name)))
    return pause
