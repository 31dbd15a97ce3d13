"""The trusted side of the judge: stages in order, process control, reference outputs, verdicts.

``Judge.evaluate`` runs, in this order (each stage one method, with its time limit and failure status):

=============  =========================================  ==================================================
stage          what                                       fails as
=============  =========================================  ==================================================
format         :func:`extract.extract_code`               ``compile_error`` (no program / no ModelNew)
static         :func:`guards.check_source`                ``compile_error`` (syntax), ``rejected`` (flags)
compile        worker imports, builds, warms up            ``compile_error`` / ``runtime_error`` / ``timeout``
correctness    trials compared here, on trusted data       ``incorrect`` / ``runtime_error`` / ``timeout``
timing         worker times; eager baseline timed here     ``runtime_error`` / ``timeout``
recheck        (full profile) trials again after timing    ``incorrect``
=============  =========================================  ==================================================

A worker that dies (signal, ``os._exit``, abort, CUDA fault) gives ``crashed``; its whole process group is killed
after every evaluation, so no process outlives :meth:`Judge.evaluate`, and nothing raised by the candidate reaches
the caller. The conversation with the worker lives in :mod:`kernelgym.judge.session`, process plumbing in
:mod:`kernelgym.judge.process`.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import secrets
import threading
import time
import weakref
from pathlib import Path
from typing import Any

from kernelgym.distributed import locks
from kernelgym.judge import guards
from kernelgym.judge.baselines import BaselineCache
from kernelgym.judge.compile import extension_dir, summarize_compiler_errors
from kernelgym.judge.extract import ExtractionError, extract_code
from kernelgym.judge.inputs import as_tuple, build_model, make_inputs
from kernelgym.judge.launch import WorkerLauncher
from kernelgym.judge.process import LOG_TAIL_CHARS, tail
from kernelgym.judge.profiles import EvalProfile, get_profile
from kernelgym.judge.protocol import FrameReader
from kernelgym.judge.result import EvalResult
from kernelgym.judge.session import Session
from kernelgym.judge.verdict import Verdict
from kernelgym.tasks import Task

PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])


def default_device() -> str:
    import torch

    return "cuda:0" if torch.cuda.is_available() else "cpu"


#: torch.compile (dynamo) is not thread-safe: judges in threads of one process compile and run compiled
#: references one at a time
COMPILE_LOCK = threading.RLock()


def worker_env(scratch: Path, on_cpu: bool) -> dict[str, str]:
    """The process environment of a worker: scrubbed, rooted in its scratch directory, the same for every
    candidate (so a worker can be started before its candidate is known)."""
    keep = ("PATH", "LANG", "LC_ALL", "CUDA_VISIBLE_DEVICES", "CUDA_HOME", "CUDA_PATH", "LD_LIBRARY_PATH",
            "TORCH_CUDA_ARCH_LIST", "NVIDIA_VISIBLE_DEVICES", "VIRTUAL_ENV", "CC", "CXX")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    # the runner's own import path (site directories given by PYTHONPATH included), never the candidate's
    python_path = os.pathsep.join([PACKAGE_ROOT] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                                                    if p and p != PACKAGE_ROOT])
    env.update(HOME=str(scratch), TMPDIR=str(scratch), PYTHONPATH=python_path, PYTHONDONTWRITEBYTECODE="1",
               TRITON_CACHE_DIR=str(scratch / "triton"), PYTHONHASHSEED="0",
               OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"), KERNELGYM_RUNNER_PID=str(os.getpid()))
    if on_cpu:
        env["TRITON_INTERPRET"] = "1"
    return env


class Judge:
    """Evaluates candidates for tasks on one device. Thread-compatible, not thread-safe: one evaluation at a time.

    Args:
        device: ``"cpu"`` (Triton interpreter, small shapes) or ``"cuda[:i]"``; default: the GPU when there is one.
        cache_dir: where eager baselines are cached (``~/.cache/kernelgym`` by default).
        static_checks: run the static guards (turn off only to test the run-time defences on their own).
        memory_limit_bytes: resident memory above which a worker is killed (``crashed``).
        min_kernel_coverage: on a GPU, the least share of kernel time the candidate's own kernels must carry.
        sandbox_namespaces: run workers in their own PID/network/mount namespaces where the OS allows it.
        gpu_lock: a :class:`~kernelgym.distributed.locks.SharedExclusiveLock` shared by judges that evaluate
            concurrently on one GPU: compile and correctness hold it shared, timing (candidate and baselines)
            exclusively, so timing always has the GPU to itself. Default on a GPU: the process-wide lock of that
            device (:func:`~kernelgym.distributed.locks.for_device`), so judges in threads of one process
            coordinate without being told; each evaluation also reserves its estimated GPU memory
            (:meth:`memory_need`) from that device's budget for its whole run.
        prestart_workers: keep one fresh worker started one evaluation ahead, so a worker's start-up (interpreter,
            torch and Triton imports) is off the critical path; isolation is unchanged (:mod:`.launch`). The spare
            lives until :meth:`close` or garbage collection.
    """

    def __init__(self, device: str | None = None, cache_dir: str | os.PathLike | None = None,
                 static_checks: bool = True, memory_limit_bytes: int = 16 << 30, min_kernel_coverage: float = 0.5,
                 sandbox_namespaces: bool = True, gpu_lock=None, prestart_workers: bool = False):
        self.device = device or default_device()
        self.on_cpu = self.device == "cpu"
        self.static_checks = static_checks
        self.memory_limit_bytes = memory_limit_bytes
        self.min_kernel_coverage = min_kernel_coverage
        self.use_sandbox = sandbox_namespaces
        device_lock, self.gpu_memory = (locks.NoLock(), locks.NoBudget()) if self.on_cpu \
            else locks.for_device(self.device)
        self.gpu_lock = gpu_lock if gpu_lock is not None else device_lock
        self._memory_needs: dict[str, int] = {}
        self._sandboxed = False
        self.cache_dir = Path(cache_dir or os.environ.get("KERNELGYM_CACHE", Path.home() / ".cache" / "kernelgym"))
        self.baselines = BaselineCache(self.cache_dir / "baselines.json")
        self._references: dict[str, Any] = {}
        self._versions: dict[str, str] | None = None
        self._hardware = None
        self._compiled: dict = {}
        self.launcher = WorkerLauncher(functools.partial(worker_env, on_cpu=self.on_cpu), sandbox_namespaces,
                                       prestart_workers)
        weakref.finalize(self, self.launcher.close)

    # ------------------------------------------------------------------------------------------------------
    def evaluate(self, task: Task, text: str, backend: str = "triton",
                 profile: str | EvalProfile = "quick") -> EvalResult:
        """Evaluate one candidate text for ``task``. Never raises on anything the text contains."""
        prof = get_profile(profile)
        result = EvalResult(task_id=task.id, backend=backend, device=self.describe_device(), profile=prof.name,
                            versions=self.versions(), hardware={"device": self.device})
        started = time.monotonic()
        try:
            source = self._stage_format(result, text)
            self._stage_static(result, source, backend)
            if backend == "cuda" and self.on_cpu:
                raise Verdict("unsupported", "CUDA candidates cannot run on this device (no GPU); use the triton "
                                              "backend or evaluate on a GPU")
            self._run_worker(result, task, source, prof)
            result.stage, result.status = "done", "ok"
            result.message = self._ok_message(result)
        except Verdict as verdict:
            result.status, result.message = verdict.status, verdict.message
        except Exception as exc:  # noqa: BLE001 - a fault of the judge itself must not end the caller's run
            result.status = "crashed"
            result.message = f"internal judge error (not the candidate's fault): {type(exc).__name__}: {exc}"[:500]
            result.add_flag("judge_error", result.message)
        result.durations["total"] = round(time.monotonic() - started, 3)
        return result

    def memory_need(self, task: Task) -> int:
        """GPU bytes one evaluation of ``task`` is expected to take at most, runner and worker together: three
        times the eager footprint bound of :func:`kernelgym.lint.footprint_bound` (inputs and their copy, outputs,
        the reference's own run), plus 1 GiB. Cached per task; half the budget when the bound cannot be had; 0 on
        the CPU, where no budget applies."""
        if self.on_cpu:
            return 0
        key = f"{task.id}:{task.digest}"
        if key not in self._memory_needs:
            try:
                from kernelgym.lint import footprint_bound

                self._memory_needs[key] = 3 * footprint_bound(task)[0] + (1 << 30)
            except Exception:  # noqa: BLE001
                capacity = self.gpu_memory.capacity or 0
                self._memory_needs[key] = capacity // 2
        return self._memory_needs[key]

    # -- stages on the trusted side -----------------------------------------------------------------------
    def _stage_format(self, result: EvalResult, text: str) -> str:
        t0 = time.monotonic()
        result.stage = "format"
        try:
            return extract_code(text)
        except ExtractionError as exc:
            raise Verdict("compile_error", f"format: {exc}") from None
        finally:
            result.durations["format"] = round(time.monotonic() - t0, 3)

    def _stage_static(self, result: EvalResult, source: str, backend: str) -> None:
        t0 = time.monotonic()
        result.stage = "static"
        try:
            compile(source, "candidate.py", "exec", dont_inherit=True)  # syntax, always checked
            flags = guards.check_source(source, backend) if self.static_checks else []
        except SyntaxError as exc:
            raise Verdict("compile_error", f"syntax error at line {exc.lineno}: {exc.msg}") from None
        except ValueError as exc:
            raise Verdict("compile_error", str(exc)) from None
        finally:
            result.durations["static"] = round(time.monotonic() - t0, 3)
        for name, reason in flags:
            result.add_flag(name, reason)
        if flags:
            raise Verdict("rejected", f"rejected by static checks: {flags[0][1]}"
                                       + (f" (+{len(flags) - 1} more)" if len(flags) > 1 else ""))

    # -- the worker ---------------------------------------------------------------------------------------
    def prebuild(self, task: Task, text: str, arch: str | None = None,
                 profile: str | EvalProfile = "quick") -> EvalResult | None:
        """Build a CUDA candidate without a GPU into the source-keyed build cache, ahead of its evaluation.

        Returns the verdict when the candidate already fails here (format, static checks, build errors), else
        ``None`` (the GPU evaluation then loads the finished build). Triton candidates return ``None`` at once.
        """
        prof = get_profile(profile)
        result = EvalResult(task_id=task.id, backend="cuda", device="cpu (build only)", profile=prof.name,
                            versions=self.versions())
        try:
            source = self._stage_format(result, text)
            self._stage_static(result, source, "cuda")
            self._run_worker(result, task, source, prof, mode="build", arch=arch)
        except Verdict as verdict:
            result.status, result.message = verdict.status, verdict.message
            return result
        return None

    def _run_worker(self, result: EvalResult, task: Task, source: str, prof: EvalProfile, mode: str = "evaluate",
                    arch: str | None = None) -> None:
        worker = self.launcher.take()
        self._sandboxed = worker.sandboxed
        secret = secrets.randbits(62)
        n_std, n_out = prof.trials, prof.outlier_trials
        trials = [{"trial": i, "seed": (secret + 7919 * i) % (2**62), "stage": "standard" if i < n_std else "outlier"}
                  for i in range(n_std + n_out)]
        recheck = [{"trial": len(trials) + i, "seed": (secret + 104729 * (i + 1)) % (2**62), "stage": "recheck"}
                   for i in range(2 if prof.name == "full" else 1)] if prof.recheck_after_timing else []
        timing_cfg = prof.cpu_timing if self.on_cpu else prof.timing
        request = {
            "mode": mode, "task": task.to_dict(), "source": source, "device": self.device, "small": self.on_cpu,
            "env": self._candidate_env(source, arch),
            "init_seed": secret % 100_003, "warmup_seed": (secret >> 7) % (2**62), "trials": trials,
            "recheck": recheck, "timing": timing_cfg.to_dict(), "scratch": str(worker.scratch),
            "timing_seed_base": (secret >> 3) % (2**60), "profile_seed": (secret >> 5) + 17,
            "limits": {"file_bytes": 256 << 20, "cpu_s": int(prof.compile_timeout_s + prof.cpu_correctness_timeout_s
                                                             + prof.timing_timeout_s + 60),
                       "address_space_bytes": (self.memory_limit_bytes * 2) if self.on_cpu else None},
        }
        try:
            session = Session(self, worker.proc, FrameReader(worker.read_fd), result, prof, task, request["init_seed"],
                              worker.scratch)
            session.judge_log = worker.log_path
            session.send_line(json.dumps(request))
            if mode == "build":
                session.run_build()
            else:
                session.run(trials, recheck)
        except Verdict as verdict:
            if verdict.status == "compile_error":
                errors = summarize_compiler_errors(tail(worker.log_path, 200_000) + "\n" + result.log_tail)
                if errors:
                    first = errors.splitlines()[0].strip()
                    verdict.message = f"{verdict.message[:200]}; first compiler error: {first[:300]}"
                    result.log_tail = "First compiler errors:\n" + errors
            raise
        finally:
            worker.kill()  # before the log is read, so all it printed is there
            if not result.log_tail.startswith("First compiler errors"):
                printed = tail(worker.log_path)
                result.log_tail = "\n".join(x for x in (printed, result.log_tail) if x)[-LOG_TAIL_CHARS:]
            worker.discard()

    def _candidate_env(self, source: str, arch: str | None = None) -> dict[str, str]:
        """Environment settings that depend on the candidate, applied by the worker before it loads anything."""
        env = {"TORCH_EXTENSIONS_DIR": str(extension_dir(self.cache_dir, source))}
        arch = arch or self.hardware().compute_capability
        if arch:  # load_inline builds for exactly this GPU, the same way in prebuild and evaluation
            env["TORCH_CUDA_ARCH_LIST"] = arch
        return env

    def idle_worker_pids(self) -> list[int]:
        """Process groups of workers started ahead that have run no candidate code (see :mod:`.launch`)."""
        return self.launcher.idle_pids()

    def close(self) -> None:
        """Stop the spare worker, if any. The judge stays usable (the next evaluation starts a worker)."""
        self.launcher.close()

    # -- reference side -----------------------------------------------------------------------------------
    def reference(self, task: Task, init_seed: int):
        """The reference module and model for ``task`` on this device (models cached per init seed)."""
        key = f"{task.id}:{task.digest}"
        cached = self._references.get(key)
        if cached is None:
            cached = {"module": task.load_module(small=self.on_cpu), "models": {}}
            self._references = {key: cached}  # keep one task's reference alive at a time
        models = cached["models"]
        if init_seed not in models:
            if len(models) >= 2:
                models.pop(next(iter(models)))
            models[init_seed] = build_model(cached["module"], cached["module"].Model, init_seed, self.device,
                                            task.dtype)
        return cached["module"], models[init_seed]

    def reference_outputs(self, task: Task, init_seed: int, trial: dict) -> tuple:
        import torch

        module, model = self.reference(task, init_seed)
        with torch.no_grad():
            outs = as_tuple(model(*make_inputs(module, trial["seed"], self.device, trial["stage"] == "outlier")))
        return outs

    def baseline_ms(self, task: Task, init_seed: int, prof: EvalProfile, kind: str = "eager") -> dict:
        """Reference timing on this device (``kind`` ``"eager"`` or ``"compile"`` for ``torch.compile``), measured
        like the candidate's and cached on disk per (task, device, dtype, torch version, kind). Evaluations time
        the eager reference interleaved with the candidate instead (:meth:`reference_timer`); this measures it
        on its own, when nothing is cached."""
        from kernelgym.judge.timing import time_calls

        hit = self.cached_baseline(task, kind)
        if hit is not None:
            return hit
        timer_model = self._timed_reference(task, kind)
        if isinstance(timer_model, str):  # torch.compile could not handle the reference: no baseline
            return self._store_summary(task, kind, {"median_ms": None, "error": timer_model})
        module, model = timer_model
        cfg = prof.cpu_timing if self.on_cpu else prof.timing
        try:
            with COMPILE_LOCK if kind == "compile" else contextlib.nullcontext():  # a call may recompile
                times = time_calls(model, lambda i: make_inputs(module, 10_007 + i, self.device), self.device, cfg)
        except Exception as exc:  # noqa: BLE001 - e.g. torch.compile failing on a later call: no baseline
            if kind != "compile":
                raise
            return {"median_ms": None, "error": f"{type(exc).__name__}: {str(exc)[:200]}"}
        return self.store_baseline(task, times, kind)

    def cached_baseline(self, task: Task, kind: str = "eager") -> dict | None:
        return self.baselines.get(self._baseline_key(task, kind))

    def reference_timer(self, task: Task, prof: EvalProfile, kind: str = "eager"):
        """A warmed-up :class:`~kernelgym.judge.timing.CallTimer` of the reference, for interleaved timing."""
        from kernelgym.judge.timing import CallTimer

        module, model = self._timed_reference(task, kind)
        timer = CallTimer(model, lambda i: make_inputs(module, 10_007 + i, self.device), self.device)
        timer.warm_up((prof.cpu_timing if self.on_cpu else prof.timing).warmup)
        return timer

    def store_baseline(self, task: Task, times: list[float], kind: str = "eager", **extra) -> dict:
        """Summarize reference timings, cache them on disk and return the summary."""
        from kernelgym.judge.timing import summarize

        return self._store_summary(task, kind, {**summarize(times), **extra})

    def _store_summary(self, task: Task, kind: str, summary: dict) -> dict:
        self.baselines.put(self._baseline_key(task, kind), summary)
        return summary

    def _baseline_key(self, task: Task, kind: str) -> str:
        return self.baselines.key(task, self.describe_device(), self.versions()["torch"], kind)

    def _timed_reference(self, task: Task, kind: str):
        """(module, model) to time for ``kind``; for ``"compile"`` an error string when torch.compile failed."""
        module, model = self.reference(task, 0)
        if kind == "compile":
            model = self.compiled_reference(task)
            if isinstance(model, str):
                return model
        return module, model

    def compiled_reference(self, task: Task):
        """``torch.compile`` of the reference model, compiled (one call made); an error string if it failed."""
        key = f"{task.id}:{task.digest}"
        cache = self._compiled
        if key not in cache:
            import torch

            module, model = self.reference(task, 0)
            try:
                with COMPILE_LOCK:
                    compiled = torch.compile(model)
                    with torch.no_grad():
                        compiled(*make_inputs(module, 99, self.device))
                cache.clear()
                cache[key] = compiled
            except Exception as exc:  # noqa: BLE001
                cache[key] = f"{type(exc).__name__}: {str(exc)[:200]}"
        return cache[key]

    def ceilings(self) -> dict:
        """This GPU's measured ceilings (:func:`kernelgym.hardware.measure_ceilings`), measured once and cached."""
        if self.on_cpu:
            return {}
        from kernelgym.hardware import measure_ceilings

        key = f"ceilings|{self.describe_device()}|{self.versions()['torch']}"
        hit = self.baselines.get(key)
        if hit is None:
            hit = measure_ceilings(self.device)
            self.baselines.put(key, hit)
        return hit

    def hardware_json(self) -> str:
        """The hardware spec of this judge's device, as JSON text (shown to the policy)."""
        return self.hardware().to_json()

    def hardware(self):
        from kernelgym.hardware import detect

        if self._hardware is None:
            self._hardware = detect(self.device)
        return self._hardware

    # -- description --------------------------------------------------------------------------------------
    def describe_device(self) -> str:
        if self.on_cpu:
            return "cpu (Triton interpreter)"
        import torch

        return f"{self.device} ({torch.cuda.get_device_name(self.device)})"

    def versions(self) -> dict[str, str]:
        if self._versions is None:
            import platform

            import torch

            try:
                import triton

                triton_version = triton.__version__
            except ImportError:  # pragma: no cover
                triton_version = "missing"
            from kernelgym import __version__

            self._versions = {"kernelgym": __version__, "torch": torch.__version__, "triton": triton_version,
                              "python": platform.python_version()}
        return self._versions

    @staticmethod
    def _ok_message(result: EvalResult) -> str:
        n = len(result.trials)
        if result.speedup is None:
            return f"correct on {n} trials"
        qualifier = "" if result.timing_meaningful else " (CPU interpreter timing: not meaningful)"
        return (f"correct on {n} trials; {result.runtime_ms:.4g} ms vs eager {result.baseline_ms:.4g} ms: "
                f"speedup {result.speedup:.3g}x{qualifier}")
