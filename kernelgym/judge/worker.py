"""The untrusted side: a throw-away process that loads one candidate and runs it.

Started by :mod:`kernelgym.judge.launch` as ``python -m kernelgym.judge.worker RESULT_FD``, possibly ahead of its
candidate (it imports torch and Triton, then waits). It reads one JSON request line from stdin, applies the
request's ``env`` settings, then runs the stages in order, announcing each on the result channel (a pipe the runner
passed as ``RESULT_FD``; what the candidate prints goes to a log file instead):

1. ``compile``     — import the candidate file, build ``ModelNew`` under the shared init seed, one warm-up forward
                     (which JIT-compiles its Triton kernels). Import or Triton compilation errors → ``compile_error``.
2. ``correctness`` — for each trial: fresh seeded inputs (outliers injected for outlier trials), a copy of them,
                     the forward, a check that the inputs were not modified, the outputs copied into files the runner made
                     (:mod:`kernelgym.judge.transfer`). Memory
                     freed between trials is overwritten with NaN first, so stale buffers cannot hold old answers.
3. ``timing``      — only when the runner answers ``time`` after the trials: blocks of :class:`timing.CallTimer` calls
                     as the runner asks for them (it times the reference in between), with fresh
                     inputs every call; then the ``recheck`` trials, as in stage 2.

The worker never judges: the runner compares outputs against its own reference and applies every limit. The
worker exits when done; the runner kills its whole process group in any case.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import traceback

# Bind everything the worker relies on before candidate code can patch it.
import torch  # noqa: E402

from kernelgym.judge import timing as _timing  # noqa: E402  (captures timing primitives at import)
from kernelgym.judge.inputs import as_tuple, build_model, make_inputs  # noqa: E402
from kernelgym.judge.profile import LaunchCounter, candidate_kernel_names, profile_forward  # noqa: E402
from kernelgym.judge.protocol import tensor_header, write_frame  # noqa: E402
from kernelgym.judge.transfer import write_tensor  # noqa: E402
from kernelgym.tasks import Task  # noqa: E402

try:  # nearly every candidate imports Triton: a worker started ahead has it loaded already
    import triton  # noqa: E402, F401
    import triton.language  # noqa: E402, F401
except ImportError:  # pragma: no cover - the CUDA backend works without Triton
    pass

import threading as _threading  # noqa: E402
import time as _time  # noqa: E402

_equal = torch.equal
_CallTimer = _timing.CallTimer
_time_block = _timing.CallTimer.time_block
_clone = torch.Tensor.clone
_is_tensor = torch.is_tensor
_type = type
_Tensor = torch.Tensor
_Parameter = torch.nn.Parameter


def _watched() -> dict:
    """Objects a candidate might patch to fool the judge; compared by identity after the candidate ran."""
    import builtins

    cuda = torch.cuda
    return {
        "torch.cuda.synchronize": cuda.synchronize, "torch.cuda.Event": cuda.Event,
        "torch.cuda.Event.record": cuda.Event.record, "torch.cuda.Event.elapsed_time": cuda.Event.elapsed_time,
        "torch.cuda.Event.synchronize": cuda.Event.synchronize, "time.perf_counter": _time.perf_counter,
        "torch.equal": torch.equal, "torch.allclose": torch.allclose, "torch.Tensor.clone": torch.Tensor.clone,
        "torch.Tensor.__eq__": torch.Tensor.__eq__,
        "torch.randn": torch.randn, "torch.rand": torch.rand, "torch.randint": torch.randint,
        "torch.nn.Module.__call__": torch.nn.Module.__call__, "torch.no_grad": torch.no_grad,
        "builtins.isinstance": builtins.isinstance, "builtins.len": builtins.len, "builtins.float": builtins.float,
        "kernelgym.judge.timing.time_calls": _timing.time_calls, "kernelgym.judge.inputs.make_inputs": make_inputs,
        "kernelgym.judge.timing.CallTimer.time_block": _timing.CallTimer.time_block,
        "kernelgym.judge.timing.CallTimer.warm_up": _timing.CallTimer.warm_up,
        "kernelgym.judge.timing._cuda_sync": _timing._cuda_sync, "kernelgym.judge.timing._Event": _timing._Event,
        "kernelgym.judge.timing._event_record": _timing._event_record,
        "kernelgym.judge.timing._event_elapsed": _timing._event_elapsed,
        "kernelgym.judge.timing._event_sync": _timing._event_sync,
        "kernelgym.judge.timing._perf_counter": _timing._perf_counter,
    }


def _resolve(path: str):
    import builtins
    import importlib as _importlib

    root, *rest = path.split(".")
    obj = {"builtins": builtins, "torch": torch, "time": _time}.get(root)
    if obj is None:
        obj = _importlib.import_module(".".join(path.split(".")[:3]))
        rest = path.split(".")[3:]
    for part in rest:
        obj = getattr(obj, part)
    return obj


_WATCHED = _watched()
_BASE_THREADS = None


class Worker:
    def __init__(self, result_fd: int, request: dict):
        self.fd = result_fd
        self.req = request
        self.device = request["device"]
        self.task = Task.from_dict(request["task"])
        self.module = self.task.load_module(small=request["small"])
        self.model = None
        self._last_output_bytes = 0
        self.launches = LaunchCounter()
        if self.device == "cpu":
            self.launches.install()

    # -- channel -------------------------------------------------------------------------------------------
    def send(self, header: dict) -> None:
        write_frame(self.fd, header)

    def error(self, status: str, exc: BaseException, where: str) -> None:
        tb = "".join(traceback.format_exception(_type(exc), exc, exc.__traceback__))
        self.send({"event": "error", "status": status, "where": where,
                   "message": f"{_type(exc).__name__}: {str(exc)[:500]}", "traceback": tb[-4000:]})

    # -- stage 1 -------------------------------------------------------------------------------------------
    def import_candidate(self):
        """Import the candidate file; its ``ModelNew`` class, or ``None`` after reporting a compile error."""
        path = os.path.join(self.req["scratch"], "candidate.py")
        with open(path, "w") as f:
            f.write(self.req["source"])
        try:
            spec = importlib.util.spec_from_file_location("candidate", path)
            candidate = importlib.util.module_from_spec(spec)
            sys.modules["candidate"] = candidate
            spec.loader.exec_module(candidate)
            return getattr(candidate, "ModelNew")
        except BaseException as exc:  # noqa: BLE001 - anything the candidate raises is its verdict
            self.error("compile_error", exc, "import")
            return None

    def compile(self) -> bool:
        self.send({"event": "stage", "stage": "compile"})
        cls = self.import_candidate()
        if cls is None:
            return False
        try:
            self.model = build_model(self.module, cls, self.req["init_seed"], self.device, self.task.dtype)
        except BaseException as exc:  # noqa: BLE001
            self.error("runtime_error", exc, "ModelNew construction")
            return False
        try:
            with torch.no_grad():
                self.model(*make_inputs(self.module, self.req["warmup_seed"], self.device))
            self._sync()
        except BaseException as exc:  # noqa: BLE001
            kind = "compile_error" if "triton" in (_type(exc).__module__ or "") and "ompil" in _type(exc).__name__ \
                else "runtime_error"
            self.error(kind, exc, "first forward")
            return False
        return True

    # -- stage 2 -------------------------------------------------------------------------------------------
    def run_trials(self, trials: list[dict]) -> bool:
        for trial in trials:
            self._poison_freed_memory()
            inputs = make_inputs(self.module, trial["seed"], self.device, outlier=trial["stage"] == "outlier")
            copies = [_clone(x) if _is_tensor(x) else x for x in inputs]
            try:
                with torch.no_grad():
                    outputs = as_tuple(self.model(*inputs))
                self._sync()
            except BaseException as exc:  # noqa: BLE001
                self.error("runtime_error", exc, f"trial {trial['trial']}")
                return False
            mutated = [i for i, (a, b) in enumerate(zip(inputs, copies)) if _is_tensor(a) and not _equal(a, b)]
            descs = []
            for out in outputs:
                if _is_tensor(out):
                    if _type(out) not in (_Tensor, _Parameter):
                        descs.append({"kind": "subclass", "type": _type(out).__name__})
                    else:
                        descs.append({"kind": "tensor", **tensor_header(out)})
                elif isinstance(out, (int, float, bool)):
                    descs.append({"kind": "scalar", "value": float(out)})
                else:
                    descs.append({"kind": _type(out).__name__})
            self.send({"event": "trial", "trial": trial["trial"], "descs": descs, "mutated_inputs": mutated})
            sent = 0
            for out, desc in zip(outputs, descs):
                if desc["kind"] == "tensor":
                    command = self._wait_for().split(" ", 1)
                    if len(command) != 2 or command[0] != "send":
                        return False
                    try:
                        sent += write_tensor(command[1], out)
                    except BaseException as exc:  # noqa: BLE001
                        self.error("runtime_error", exc, f"trial {trial['trial']}: sending an output")
                        return False
                    self.send({"event": "tensor"})
            self._last_output_bytes = sent
            del outputs, inputs, copies
            if self._wait_for() != "next":
                return False
        return True

    def profile(self) -> bool:
        """One profiled forward: which kernels ran and whose they were (see :mod:`kernelgym.judge.profile`)."""
        names = candidate_kernel_names(self.req["source"])
        self.launches.counts.clear()
        try:
            inputs = make_inputs(self.module, self.req["profile_seed"], self.device)
            report = profile_forward(self.model, inputs, self.device, names)
        except BaseException as exc:  # noqa: BLE001
            self.error("runtime_error", exc, "profiled forward")
            return False
        report["candidate_kernels"] = names
        report["interpreter_launches"] = dict(self.launches.counts)
        report["integrity_flags"] = self.integrity_flags()
        self.send({"event": "profile", "report": report})
        return True

    # -- stage 3 -------------------------------------------------------------------------------------------
    def time(self) -> bool:
        """Warm up, then time blocks of calls as the runner asks (``block N``) until it says ``end``; the runner
        interleaves its own reference timing between the blocks (:func:`kernelgym.judge.timing.alternate`)."""
        self.send({"event": "stage", "stage": "timing"})
        config = _timing.TimingConfig(**self.req["timing"])
        base = self.req["timing_seed_base"]  # every timed call gets inputs from a seed never used before
        timer = _CallTimer(self.model, lambda i: make_inputs(self.module, base + 1000 + i, self.device), self.device)
        try:
            timer.warm_up(config.warmup)
        except BaseException as exc:  # noqa: BLE001
            self.error("runtime_error", exc, "timing warm-up")
            return False
        self.send({"event": "timing_ready"})
        while True:
            command = self._wait_for().split()
            if command == ["end"]:
                self.send({"event": "timing_done", "integrity_flags": self.integrity_flags()})
                return True
            if len(command) != 2 or command[0] != "block" or not command[1].isdigit():
                return False
            calls = min(int(command[1]), config.max_runs)
            try:
                times = _time_block(timer, calls)
            except BaseException as exc:  # noqa: BLE001
                self.error("runtime_error", exc, "timing")
                return False
            self.send({"event": "timing", "times_ms": times})

    # -- helpers -------------------------------------------------------------------------------------------
    def _sync(self) -> None:
        if self.device.startswith("cuda"):
            torch.cuda.synchronize()

    def integrity_flags(self) -> list[list[str]]:
        """Flags for patched judge-relevant functions and for threads the candidate left running."""
        flags = []
        for path, original in _WATCHED.items():
            try:
                now = _resolve(path)
            except Exception:  # noqa: BLE001 - deleted attribute counts as patched
                now = None
            if now is not original:
                flags.append(["monkeypatch", f"the candidate replaced {path}"])
        extra = [t.name for t in _threading.enumerate() if t.ident not in _BASE_THREADS and t.is_alive()]
        if extra:
            flags.append(["background_thread", f"the candidate left thread(s) running: {', '.join(extra[:3])}"])
        return flags

    def _wait_for(self) -> str:
        return sys.stdin.readline().strip()

    def _poison_freed_memory(self) -> None:
        n = max(self._last_output_bytes * 2, 1 << 20) // 4
        junk = torch.full((n,), float("nan"), device=self.device)
        del junk


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


def main() -> int:
    result_fd = int(sys.argv[1])
    line = sys.stdin.readline()  # a worker started ahead waits here, having run nothing of any candidate
    if not line:
        return 0
    request = json.loads(line)
    os.environ.update(request.get("env", {}))  # candidate-specific settings (build directory, CUDA arch list)
    _harden(request)
    if os.environ.get("TRITON_INTERPRET") == "1":
        from kernelgym.judge import interpreter_fixes

        interpreter_fixes.apply()
    from kernelgym.judge.autotune import bound_autotune

    bound_autotune(int(request.get("max_autotune_configs", 8)))
    global _BASE_THREADS
    _BASE_THREADS = {t.ident for t in _threading.enumerate()}
    worker = Worker(result_fd, request)
    worker.send({"event": "ready"})
    if worker._wait_for() != "go":
        return 0
    if request.get("mode") == "build":  # CUDA prebuild on a CPU worker: import (load_inline builds), then stop
        worker.send({"event": "stage", "stage": "compile"})
        if worker.import_candidate() is None:
            return 0
        worker.send({"event": "done"})
        return 0
    if not worker.compile():
        return 0
    worker.send({"event": "stage", "stage": "correctness"})
    if not worker.run_trials(request["trials"]):
        return 0
    if not worker.profile():
        return 0
    if worker._wait_for() != "time":
        return 0
    if not worker.time():
        return 0
    if request.get("recheck"):
        worker.send({"event": "stage", "stage": "recheck"})
        if not worker.run_trials(request["recheck"]):
            return 0
    worker.send({"event": "done"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
