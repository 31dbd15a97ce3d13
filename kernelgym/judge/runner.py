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
the caller.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from kernelgym.judge import guards, sandbox
from kernelgym.distributed.locks import NoLock
from kernelgym.judge.baselines import BaselineCache
from kernelgym.judge.compile import extension_dir, summarize_compiler_errors
from kernelgym.judge.correctness import TrialCheck, check_description, compare_outputs, describe
from kernelgym.judge.extract import ExtractionError, extract_code
from kernelgym.judge.inputs import as_tuple, build_model, make_inputs
from kernelgym.judge.profiles import EvalProfile, get_profile
from kernelgym.judge.protocol import Deadline, FrameReader, ProtocolError, tensor_from_bytes
from kernelgym.judge.result import EvalResult
from kernelgym.tasks import Task

PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])
LOG_TAIL_CHARS = 3000


class _Verdict(Exception):
    """Internal: ends the evaluation with a status and message."""

    def __init__(self, status: str, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def default_device() -> str:
    import torch

    return "cuda:0" if torch.cuda.is_available() else "cpu"


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
            exclusively, so timing always has the GPU to itself.
    """

    def __init__(self, device: str | None = None, cache_dir: str | os.PathLike | None = None,
                 static_checks: bool = True, memory_limit_bytes: int = 16 << 30, min_kernel_coverage: float = 0.5,
                 sandbox_namespaces: bool = True, gpu_lock=None):
        self.device = device or default_device()
        self.on_cpu = self.device == "cpu"
        self.static_checks = static_checks
        self.memory_limit_bytes = memory_limit_bytes
        self.min_kernel_coverage = min_kernel_coverage
        self.use_sandbox = sandbox_namespaces
        self.gpu_lock = gpu_lock if gpu_lock is not None else NoLock()
        self._sandboxed = False
        self.cache_dir = Path(cache_dir or os.environ.get("KERNELGYM_CACHE", Path.home() / ".cache" / "kernelgym"))
        self.baselines = BaselineCache(self.cache_dir / "baselines.json")
        self._references: dict[str, Any] = {}
        self._versions: dict[str, str] | None = None
        self._hardware = None
        self._compiled: dict = {}

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
                raise _Verdict("unsupported", "CUDA candidates cannot run on this device (no GPU); use the triton "
                                              "backend or evaluate on a GPU")
            self._run_worker(result, task, source, prof)
            result.stage, result.status = "done", "ok"
            result.message = self._ok_message(result)
        except _Verdict as verdict:
            result.status, result.message = verdict.status, verdict.message
        result.durations["total"] = round(time.monotonic() - started, 4)
        return result

    # -- stages on the trusted side -----------------------------------------------------------------------
    def _stage_format(self, result: EvalResult, text: str) -> str:
        t0 = time.monotonic()
        result.stage = "format"
        try:
            return extract_code(text)
        except ExtractionError as exc:
            raise _Verdict("compile_error", f"format: {exc}") from None
        finally:
            result.durations["format"] = round(time.monotonic() - t0, 4)

    def _stage_static(self, result: EvalResult, source: str, backend: str) -> None:
        t0 = time.monotonic()
        result.stage = "static"
        try:
            compile(source, "candidate.py", "exec", dont_inherit=True)  # syntax, always checked
            flags = guards.check_source(source, backend) if self.static_checks else []
        except SyntaxError as exc:
            raise _Verdict("compile_error", f"syntax error at line {exc.lineno}: {exc.msg}") from None
        except ValueError as exc:
            raise _Verdict("compile_error", str(exc)) from None
        finally:
            result.durations["static"] = round(time.monotonic() - t0, 4)
        for name, reason in flags:
            result.add_flag(name, reason)
        if flags:
            raise _Verdict("rejected", f"rejected by static checks: {flags[0][1]}"
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
        except _Verdict as verdict:
            result.status, result.message = verdict.status, verdict.message
            return result
        return None

    def _run_worker(self, result: EvalResult, task: Task, source: str, prof: EvalProfile, mode: str = "evaluate",
                    arch: str | None = None) -> None:
        scratch = Path(tempfile.mkdtemp(prefix="kernelgym-run-"))
        secret = secrets.randbits(62)
        n_std, n_out = prof.trials, prof.outlier_trials
        trials = [{"trial": i, "seed": (secret + 7919 * i) % (2**62), "stage": "standard" if i < n_std else "outlier"}
                  for i in range(n_std + n_out)]
        recheck = [{"trial": len(trials) + i, "seed": (secret + 104729 * (i + 1)) % (2**62), "stage": "recheck"}
                   for i in range(2 if prof.name == "full" else 1)] if prof.recheck_after_timing else []
        timing_cfg = prof.cpu_timing if self.on_cpu else prof.timing
        request = {
            "mode": mode, "task": task.to_dict(), "source": source, "device": self.device, "small": self.on_cpu,
            "init_seed": secret % 100_003, "warmup_seed": (secret >> 7) % (2**62), "trials": trials,
            "recheck": recheck, "timing": timing_cfg.to_dict(), "scratch": str(scratch),
            "timing_seed_base": (secret >> 3) % (2**60), "profile_seed": (secret >> 5) + 17,
            "limits": {"file_bytes": 256 << 20, "cpu_s": int(prof.compile_timeout_s + prof.cpu_correctness_timeout_s
                                                             + prof.timing_timeout_s + 60),
                       "address_space_bytes": (self.memory_limit_bytes * 2) if self.on_cpu else None},
        }
        read_fd, write_fd = os.pipe()
        log_path = scratch / "log.txt"
        proc = None
        try:
            with open(log_path, "wb") as log:
                argv, self._sandboxed = sandbox.wrap([sys.executable, "-m", "kernelgym.judge.worker", str(write_fd)],
                                                     self.use_sandbox)
                proc = subprocess.Popen(argv,
                                        stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT,
                                        pass_fds=(write_fd,), cwd=scratch, env=self._worker_env(scratch, task, source, arch),
                                        start_new_session=True)
            os.close(write_fd)
            write_fd = -1
            session = _Session(self, proc, FrameReader(read_fd), result, prof, task, request["init_seed"])
            session.judge_log = log_path
            session.send_line(json.dumps(request))
            if mode == "build":
                session.run_build()
            else:
                session.run(trials, recheck)
        except _Verdict as verdict:
            if verdict.status == "compile_error":
                errors = summarize_compiler_errors(_tail(log_path, 200_000) + "\n" + result.log_tail)
                if errors:
                    first = errors.splitlines()[0].strip()
                    verdict.message = f"{verdict.message[:200]}; first compiler error: {first[:300]}"
                    result.log_tail = "First compiler errors:\n" + errors
            raise
        finally:
            if write_fd >= 0:
                os.close(write_fd)
            os.close(read_fd)
            if proc is not None:
                _kill_group(proc)
            if not result.log_tail.startswith("First compiler errors"):
                printed = _tail(log_path)
                result.log_tail = "\n".join(x for x in (printed, result.log_tail) if x)[-LOG_TAIL_CHARS:]
            shutil.rmtree(scratch, ignore_errors=True)

    def _worker_env(self, scratch: Path, task: Task, source: str = "", arch: str | None = None) -> dict[str, str]:
        keep = ("PATH", "LANG", "LC_ALL", "CUDA_VISIBLE_DEVICES", "CUDA_HOME", "CUDA_PATH", "LD_LIBRARY_PATH",
                "TORCH_CUDA_ARCH_LIST", "NVIDIA_VISIBLE_DEVICES", "VIRTUAL_ENV", "CC", "CXX")
        env = {k: os.environ[k] for k in keep if k in os.environ}
        # the runner's own import path (site directories given by PYTHONPATH included), never the candidate's
        python_path = os.pathsep.join([PACKAGE_ROOT] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                                                        if p and p != PACKAGE_ROOT])
        env.update(HOME=str(scratch), TMPDIR=str(scratch), PYTHONPATH=python_path, PYTHONDONTWRITEBYTECODE="1",
                   TRITON_CACHE_DIR=str(scratch / "triton"), TORCH_EXTENSIONS_DIR=str(extension_dir(self.cache_dir, source)),
                   PYTHONHASHSEED="0", OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"),
                   KERNELGYM_RUNNER_PID=str(os.getpid()))
        if self.on_cpu:
            env["TRITON_INTERPRET"] = "1"
        arch = arch or self.hardware().compute_capability
        if arch:  # load_inline builds for exactly this GPU, the same way in prebuild and evaluation
            env["TORCH_CUDA_ARCH_LIST"] = arch
        return env

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
        like the candidate's and cached on disk per (task, device, dtype, torch version, kind)."""
        from kernelgym.judge.timing import summarize, time_calls

        key = self.baselines.key(task, self.describe_device(), self.versions()["torch"], kind)
        hit = self.baselines.get(key)
        if hit is not None:
            return hit
        module, model = self.reference(task, 0)
        if kind == "compile":
            model = self.compiled_reference(task)
            if isinstance(model, str):  # torch.compile could not handle the reference: no baseline
                summary = {"median_ms": None, "error": model}
                self.baselines.put(key, summary)
                return summary
        cfg = prof.cpu_timing if self.on_cpu else prof.timing
        times = time_calls(model, lambda i: make_inputs(module, 10_007 + i, self.device), self.device, cfg)
        summary = summarize(times)
        self.baselines.put(key, summary)
        return summary

    def compiled_reference(self, task: Task):
        """``torch.compile`` of the reference model, compiled (one call made); an error string if it failed."""
        key = f"{task.id}:{task.digest}"
        cache = self._compiled
        if key not in cache:
            import torch

            module, model = self.reference(task, 0)
            try:
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


class _Session:
    """One conversation with one worker process: reads its frames with stage deadlines, answers, decides."""

    def __init__(self, judge: Judge, proc: subprocess.Popen, reader: FrameReader, result: EvalResult,
                 prof: EvalProfile, task: Task, init_seed: int):
        self.judge, self.proc, self.reader, self.result, self.prof, self.task = judge, proc, reader, result, prof, task
        self.init_seed = init_seed
        self._shared = None
        self.judge_log: Path | None = None
        self.stage_started = time.monotonic()
        self.deadline = self.stage_started + prof.startup_timeout_s + prof.compile_timeout_s
        self.stage_name = "startup"

    # -- I/O --------------------------------------------------------------------------------------------
    def send_line(self, line: str) -> None:
        try:
            self.proc.stdin.write((line + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass  # the worker is gone; reading its channel reports how

    def next_frame(self) -> tuple[dict, bool]:
        """The next header, after enforcing the current stage's deadline and the memory limit."""
        while True:
            slice_end = min(self.deadline, time.monotonic() + 0.5)
            try:
                return self.reader.read_header(slice_end), True
            except Deadline:
                if time.monotonic() >= self.deadline:
                    limit = self.deadline - self.stage_started
                    raise _Verdict("timeout", f"{self.stage_name} stage exceeded its {limit:.0f} s limit; the worker "
                                              f"was killed") from None
                self._check_memory()
            except EOFError:
                raise self._died() from None
            except ProtocolError as exc:
                raise _Verdict("crashed", f"the worker sent a malformed message ({exc})") from None

    def payload(self, header: dict) -> bytes:
        try:
            return self.reader.read_payload(header, self.deadline)
        except Deadline:
            raise _Verdict("timeout", f"{self.stage_name} stage exceeded its limit while sending outputs") from None
        except EOFError:
            raise self._died() from None

    def _check_memory(self) -> None:
        rss = _rss_bytes(self.proc.pid)
        if rss is not None and rss > self.judge.memory_limit_bytes:
            raise _Verdict("crashed", f"the worker used {rss / 2**30:.1f} GiB of host memory, over the "
                                      f"{self.judge.memory_limit_bytes / 2**30:.1f} GiB limit; it was killed")

    def _died(self) -> _Verdict:
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        how = sandbox.describe_exit(code, self.judge._sandboxed)
        if self.stage_name == "startup":  # before any candidate code ran: the judge's fault, said plainly
            tail = " | ".join(_tail(self.judge_log).strip().splitlines()[-3:]) if self.judge_log else ""
            return _Verdict("crashed", f"the judge's worker process {how} while starting, before the candidate was "
                                       f"loaded (not the candidate's fault): {tail[:400]}")
        return _Verdict("crashed", f"the worker process {how} during the {self.stage_name} stage (the candidate "
                                   f"ended or crashed its process)")

    # -- protocol ---------------------------------------------------------------------------------------
    def enter_stage(self, name: str) -> None:
        prof = self.prof
        limits = {"compile": prof.cuda_compile_timeout_s if self.result.backend == "cuda" else prof.compile_timeout_s,
                  "correctness": prof.cpu_correctness_timeout_s if self.judge.on_cpu else prof.correctness_timeout_s,
                  "timing": prof.timing_timeout_s, "recheck": prof.correctness_timeout_s}
        now = time.monotonic()
        self.result.durations[self.stage_name] = round(now - self.stage_started, 4)
        self.stage_name, self.stage_started = name, now
        self.deadline = now + limits[name]
        if name in ("compile", "correctness", "timing"):
            self.result.stage = name

    def expect(self, *events: str) -> dict:
        header, _ = self.next_frame()
        event = header.get("event")
        if event == "stage":
            stage = header.get("stage")
            if stage not in ("compile", "correctness", "timing", "recheck"):
                raise _Verdict("crashed", "the worker announced an unknown stage")
            self.enter_stage(stage)
            return self.expect(*events)
        if event not in events:
            self._handle_unexpected(header)
        return header

    def run(self, trials: list[dict], recheck: list[dict]) -> None:
        try:
            self.expect("ready")  # the worker has imported torch; GPU work starts only when allowed
            self._shared = self.judge.gpu_lock.shared()
            self._shared.__enter__()
            self.send_line("go")
            self.expect_stage("compile")
            self.expect_stage("correctness")
            self.check_trials(trials)
            self.check_profile(self.expect("profile"))
            if self.prof.compile_baseline and not self.judge.on_cpu:
                self.judge.compiled_reference(self.task)  # torch.compile's own compilation, outside the exclusive lock
            self._release_shared()
            with self.judge.gpu_lock.exclusive():  # the GPU to itself while timing (see kernelgym.distributed)
                self.send_line("time")
                header = self.expect("timing")
                self.record_timing(header)
                if recheck:
                    self.check_trials(recheck)
                self.expect("done")
        finally:
            self._release_shared()
            self.result.durations[self.stage_name] = round(time.monotonic() - self.stage_started, 4)

    def run_build(self) -> None:
        """Build-only session: the worker imports the candidate (building it) and stops."""
        try:
            self.expect("ready")
            self.send_line("go")
            self.expect_stage("compile")
            self.expect("done")
        finally:
            self.result.durations[self.stage_name] = round(time.monotonic() - self.stage_started, 4)

    def _release_shared(self) -> None:
        if self._shared is not None:
            self._shared.__exit__(None, None, None)
            self._shared = None

    def expect_stage(self, name: str) -> None:
        header, _ = self.next_frame()
        if header.get("event") == "stage" and header.get("stage") == name:
            self.enter_stage(name)
            return
        self._handle_unexpected(header)

    def _handle_unexpected(self, header: dict) -> None:
        if header.get("event") == "error":
            status = header.get("status") if header.get("status") in ("compile_error", "runtime_error") \
                else "runtime_error"
            self.result.log_tail = str(header.get("traceback", ""))[-LOG_TAIL_CHARS:]
            raise _Verdict(status, f"{header.get('where', self.stage_name)}: {header.get('message', '')}")
        raise _Verdict("crashed", f"the worker sent {header.get('event')!r} out of order")

    def check_trials(self, trials: list[dict]) -> None:
        init_seed = self.init_seed
        for trial in trials:
            header = self.expect("trial")
            if header.get("trial") != trial["trial"]:
                raise _Verdict("crashed", "the worker answered a different trial than asked")
            refs = self.judge.reference_outputs(self.task, init_seed, trial)
            check = self._check_one(trial, header, refs)
            record = {"trial": trial["trial"], "stage": trial["stage"], **check.to_dict()}
            self.result.trials.append(record)
            if not check.ok:
                self.send_line("stop")
                where = "after timing" if self.stage_name == "recheck" else f"{trial['stage']} trial {trial['trial']}"
                raise _Verdict("incorrect", f"wrong result in {where}: {check.reason}")
            self.send_line("next")

    def _check_one(self, trial: dict, header: dict, refs: tuple) -> TrialCheck:
        if header.get("mutated_inputs"):
            self.result.add_flag("input_mutation", f"the forward modified input(s) {header['mutated_inputs']}")
            return TrialCheck(False, f"the forward modified its input(s) {header['mutated_inputs']}")
        descs = header.get("descs") or []
        if len(descs) != len(refs):
            return TrialCheck(False, f"expected {len(refs)} output(s), got {len(descs)}")
        outs = []
        for i, (ref, desc) in enumerate(zip(refs, descs)):
            if desc.get("kind") == "subclass":
                self.result.add_flag("tensor_subclass", f"output {i} is a {desc.get('type')}, not a plain tensor")
                self.send_line("stop")
                raise _Verdict("rejected", f"rejected: output {i} is a tensor subclass ({desc.get('type')}); "
                                           f"return plain tensors")
            bad = check_description(describe(ref), desc, i)
            if bad is not None:
                return bad
            if desc["kind"] == "tensor":
                self.send_line("send")
                frame = self.expect("tensor")
                try:
                    outs.append(tensor_from_bytes(desc, self.payload(frame)))
                except ProtocolError as exc:
                    return TrialCheck(False, f"output {i}: {exc}")
            else:
                outs.append(desc.get("value"))
        atol = self.task.atol * (10.0 if trial["stage"] == "outlier" else 1.0)
        return compare_outputs(refs, tuple(outs), atol, self.task.rtol, self.task.check)

    def check_profile(self, header: dict) -> None:
        """Reject a candidate whose own kernels did not do the work (see docs/SECURITY.md, class 6)."""
        report = header.get("report") if isinstance(header.get("report"), dict) else {}
        names = report.get("candidate_kernels") or []
        res = self.result
        for flag in report.get("integrity_flags") or []:
            if isinstance(flag, list) and len(flag) == 2:
                res.add_flag(str(flag[0]), str(flag[1]))
        aten = report.get("aten_compute_ops") or []
        if aten:
            res.add_flag("torch_fallback", f"torch operators did compute in the forward: {', '.join(aten[:5])}")
        if self.judge.on_cpu:
            launched = sum(int(v) for k, v in (report.get("interpreter_launches") or {}).items() if k in names)
            if launched == 0:
                res.add_flag("no_custom_kernel", "none of the candidate's kernels was launched in the forward")
        else:
            res.kernel_coverage = report.get("coverage")
            if not report.get("launched"):
                res.add_flag("no_custom_kernel", "none of the candidate's kernels ran on the GPU in the forward")
            elif res.kernel_coverage is not None and res.kernel_coverage < self.judge.min_kernel_coverage:
                foreign = ", ".join(k["name"][:60] for k in report.get("foreign_kernels", [])[:3])
                res.add_flag("low_kernel_coverage", f"only {100 * res.kernel_coverage:.0f}% of GPU time was in the "
                                                    f"candidate's kernels (others: {foreign})")
        if res.flags:
            self.send_line("stop")
            raise _Verdict("rejected", f"rejected: {res.flags[0]['reason']}")

    def record_timing(self, header: dict) -> None:
        from kernelgym.judge.timing import summarize

        times = [float(t) for t in header.get("times_ms", []) if isinstance(t, (int, float))]
        summary = summarize(times)
        res = self.result
        res.runtime_ms = summary["median_ms"]
        res.runtime_spread = {k: summary[k] for k in ("iqr_ms", "ci95_ms", "n")}
        base = self.judge.baseline_ms(self.task, 0, self.prof)
        res.baseline_ms = base["median_ms"]
        res.timing_meaningful = not self.judge.on_cpu
        if res.runtime_ms and res.baseline_ms:
            res.speedup = res.baseline_ms / res.runtime_ms
        if self.judge.on_cpu or not res.runtime_ms:
            return
        if self.prof.compile_baseline:
            compiled = self.judge.baseline_ms(self.task, 0, self.prof, kind="compile")
            res.compile_baseline_ms = compiled.get("median_ms")
            if res.compile_baseline_ms:
                res.speedup_compile = res.compile_baseline_ms / res.runtime_ms
        self.record_efficiency()

    def record_efficiency(self) -> None:
        """IOU and MFU over this GPU's measured ceilings; beyond the vendor's peak is physically impossible."""
        from kernelgym.hardware import PRECISION_OF_DTYPE

        res, task = self.result, self.task
        seconds = res.runtime_ms / 1e3
        measured, vendor = self.judge.ceilings(), self.judge.hardware().peaks
        precision = PRECISION_OF_DTYPE.get(task.dtype, "fp32")
        for field_name, formula, unit, key in (("iou", "bytes", 1e12, "bandwidth_tbs"), ("mfu", "flops", 1e12, precision)):
            amount = task.evaluate_formula(formula)
            ceiling = measured.get(key) or vendor.get(key)
            if not amount or not ceiling:
                continue
            rate = amount / seconds / unit
            value = rate / ceiling
            if vendor.get(key) and rate > 1.05 * vendor[key]:
                res.add_flag("physically_impossible", f"{formula} rate {rate:.3g} T/s exceeds the GPU's peak "
                                                      f"{vendor[key]:.3g}: the measured time cannot be real")
                raise _Verdict("rejected", "rejected: the measured runtime is faster than the hardware allows "
                                           f"({field_name.upper()} {100 * value:.0f}% of the measured ceiling)")
            if value > 1.0:
                res.add_flag("above_measured_ceiling", f"{field_name.upper()} {100 * value:.0f}% of the measured "
                                                       f"{key} ceiling: a measurement or task-formula error")
                continue
            setattr(res, field_name, value)


def _tail(path: Path, chars: int = LOG_TAIL_CHARS) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - chars))
            return f.read().decode(errors="replace")
    except OSError:
        return ""


def _rss_bytes(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _kill_group(proc: subprocess.Popen) -> None:
    """Kill the worker and everything it started (its own session/process group), then reap it."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.kill()
    except ProcessLookupError:
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:  # pragma: no cover
        pass
    if proc.stdin:
        try:
            proc.stdin.close()
        except OSError:
            pass
    _wait_group_gone(proc.pid)


def _group_members(pgid: int) -> list[int]:
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            members.append(int(entry))
    return members


def _wait_group_gone(pgid: int, timeout: float = 5.0) -> None:
    """Block until every process of the worker's group has exited (SIGKILL is delivered asynchronously)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        members = _group_members(pgid)
        if not members:
            return
        for pid in members:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.02)
