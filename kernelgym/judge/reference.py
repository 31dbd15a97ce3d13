"""The reference side of the judge (trusted): the task's own model, its outputs, its timings and the GPU's ceilings.

Everything here runs in the runner's process from the task's files, which no candidate can have touched; the
baseline cache lives in the runner's cache folder, which no worker can see (:mod:`kernelgym.judge.sandbox`).
A :class:`ReferenceSide` is handed to each :class:`~kernelgym.judge.session.Session`; it never calls back.
"""

from __future__ import annotations

import contextlib
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, ContextManager

from kernelgym.judge import streams
from kernelgym.judge.baselines import BaselineCache
from kernelgym.judge.inputs import NO_OUTLIERS, as_tuple, build_model, call_seed, input_leaves, make_inputs, \
    map_tensors
from kernelgym.judge.numerics import reference_numerics, settings_held
from kernelgym.judge.profiles import EvalProfile
from kernelgym.judge.timing import CallTimer
from kernelgym.tasks import Task

#: torch.compile (dynamo) is not thread-safe: judges in threads of one process compile and run compiled
#: references one at a time
COMPILE_LOCK = threading.RLock()
#: seed base of the inputs the reference is timed on (its inputs are not secret: no candidate sees them)
TIMING_SEED = 10_007


#: The torch profiler is one per process, and its CUDA side (kineto) keeps per-thread state; torch's own test that
#: profiles from many threads has segfaulted (pytorch/pytorch#132331). Reference profiling by concurrent evaluations
#: (one Judge per thread) therefore runs on this one thread, one profile at a time, as in single-threaded use.
#: kineto still prints "External init callback must run in same thread as registerClient" once: its client was
#: registered by the thread that imported torch, which is not this one.
PROFILER_THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kernelgym-profiler")


class RunnerTimer(CallTimer):
    """A :class:`~kernelgym.judge.timing.CallTimer` of the runner's: with the ``activity`` timing method its blocks
    run on :data:`PROFILER_THREAD`, where every profile of this process is taken (one profiler per process; judges
    in several threads time their references one at a time anyway, each with the GPU held alone)."""

    def time_block(self, calls: int, keep: list | None = None, after_call=None) -> list[float]:
        return self._where_profiled(lambda: CallTimer.time_block(self, calls, keep, after_call=after_call))

    def _where_profiled(self, run):
        if not (self.on_gpu and self.method == "activity"):
            return run()
        import torch

        def on_device():
            with torch.cuda.device(torch.device(self.device)):
                return run()

        return PROFILER_THREAD.submit(on_device).result()


class ReferenceTimer(RunnerTimer):
    """A :class:`RunnerTimer` whose every block and warm-up runs under the reference's pinned numerics
    (:mod:`kernelgym.judge.numerics`); the settings are switched outside the timed calls."""

    def warm_up(self, calls: int) -> None:
        with reference_numerics():
            super().warm_up(calls)

    def time_block(self, calls: int, keep: list | None = None, after_call=None) -> list[float]:
        def run():
            with reference_numerics():
                return CallTimer.time_block(self, calls, keep, after_call=after_call)

        return self._where_profiled(run)

    def copied_block(self, calls: int) -> list[float]:
        """A block of ``calls`` whose every call's outputs are copied after it, as the candidate's timed calls are,
        and each copy released before the next call (``after_call``, outside the timed interval): the same work
        outside the timed interval as the candidate's blocks, with one copy alive at most. Every timed block of the
        reference is one of these (interleaved with the candidate's, and the confirmation alone): the whole block's
        copies kept alive put seven of L1/15's 4.6 GB tensors in the runner at once (H100,
        ``benchmarks/memory_peaks.py``), where the memory budget reckoned on about four."""
        keep: list = []
        return self.time_block(calls, keep, after_call=keep.clear)


class ReferenceSide:
    """The reference model of one task at a time on ``device``, and the per-task baseline cache.

    Args:
        device: ``"cpu"`` or ``"cuda[:i]"``.
        cache_dir: the runner's cache folder (``baselines.json``).
        device_name: the device as results describe it (part of every cache key).
        torch_version: part of every cache key.
    """

    def __init__(self, device: str, cache_dir: Path, device_name: str, torch_version: str,
                 timing_method: str = "synchronized"):
        self.device, self.on_cpu = device, device == "cpu"
        self.timing_method = timing_method
        self.device_name, self.torch_version = device_name, torch_version
        self.baselines = BaselineCache(Path(cache_dir) / "baselines.json")
        self._references: dict[str, Any] = {}
        self._compiled: dict = {}
        self._top_kernels: dict = {}

    def release_cached_memory(self, min_unused: int = 0) -> None:
        """Give the GPU memory this process's caching allocator keeps but does not use back to the driver (nothing on
        the CPU), where it keeps more than ``min_unused`` bytes so. Call it with the GPU held shared: freeing
        synchronises this process's work, so never inside another evaluation's timed block."""
        if not self.on_cpu:
            import torch

            device = torch.device(self.device)
            if torch.cuda.memory_reserved(device) - torch.cuda.memory_allocated(device) > min_unused:
                torch.cuda.empty_cache()

    # -- outputs -----------------------------------------------------------------------------------------------
    def model(self, task: Task, init_seed: int):
        """The reference module and model for ``task`` on this device (models cached per init seed)."""
        key = task.key
        cached = self._references.get(key)
        if cached is None:
            cached = {"module": task.load_module(small=self.on_cpu), "models": {}}
            self._references = {key: cached}  # keep one task's reference alive at a time
        models = cached["models"]
        if init_seed not in models:
            if len(models) >= 2:
                models.pop(next(iter(models)))
            models[init_seed] = build_model(cached["module"], cached["module"].Model, init_seed, self.device,
                                            task.dtype, task.mode)
        return cached["module"], models[init_seed]

    def outputs(self, task: Task, init_seed: int, seed: int, outlier: int = NO_OUTLIERS) -> tuple:
        """The reference's outputs on the inputs drawn from ``seed`` (with outliers when asked, see
        :data:`~kernelgym.judge.inputs.SIGNED_OUTLIERS`)."""
        import torch

        module, model = self.model(task, init_seed)
        with torch.no_grad(), reference_numerics():
            return as_tuple(model(*make_inputs(module, seed, self.device, outlier)))

    def output_aliases(self, task: Task, init_seed: int, seed: int, outlier: int = NO_OUTLIERS) -> tuple:
        """Per output of the reference on the inputs drawn from ``seed``, whether it shares memory with one of them
        (the input itself, or a view of it): where it does not, a candidate's output that does left the copy to
        the judge (:meth:`kernelgym.judge.session.Session._aliasing_refused`)."""
        import torch

        module, model = self.model(task, init_seed)
        with torch.no_grad(), reference_numerics():
            inputs = make_inputs(module, seed, self.device, outlier)
            outputs = as_tuple(model(*inputs))
        from kernelgym.judge.timing import layout

        return tuple(torch.is_tensor(o) and layout(o, inputs)["aliases_input"] for o in outputs)

    def exact_outputs(self, task: Task, init_seed: int, seed: int, outlier: int = NO_OUTLIERS,
                      off_device: Callable[[], ContextManager] = contextlib.nullcontext,
                      make_room: Callable[[], bool] = lambda: False) -> tuple | None:
        """The same model and inputs as :meth:`outputs`, run in float64 (a copy of the model with float64
        parameters, floating inputs upcast from the very values :meth:`outputs` used): the second reference of
        :mod:`~kernelgym.judge.correctness`. ``None`` when the model cannot run in float64 (an op without a float64
        kernel, a dtype it insists on).

        A candidate can make every comparison need it (elements placed between the two references' tolerances, a
        red-team finding), so the float64 copy of the model is made once per model and kept beside it (:meth:`model`'s
        cache), not once per comparison. Where the GPU has no room for it: ``make_room()`` is asked for the memory
        (True: reserved, e.g. :meth:`kernelgym.judge.session.Session.exact_room`) and the GPU tried once more; then
        the host, the model's calls inside ``off_device`` (the caller's GPU hold is given back there, e.g.
        :meth:`kernelgym.judge.session.Session.off_gpu`); :meth:`_run_exact`."""
        return self._run_exact(task, init_seed, seed, outlier, off_device=off_device, make_room=make_room)

    def perturbed_outputs(self, task: Task, init_seed: int, seed: int, outlier: int, rel: float, pairs: int,
                          each: Callable[[int, tuple], None],
                          off_device: Callable[[], ContextManager] = contextlib.nullcontext,
                          make_room: Callable[[], bool] = lambda: False) -> bool:
        """Call ``each(index, outputs)`` with :meth:`exact_outputs` computed ``2 * pairs`` times on moved data
        (``index`` 0 to ``2 * pairs - 1``; it starts at 0 again when the GPU ran out of memory and the moves are
        made on the host instead, :meth:`_run_exact`): every floating input and parameter multiplied by
        ``1 + rel * u`` and then by ``1 - rel * u``, ``u`` uniform in [-1, 1] per element, drawn afresh for each
        pair from a generator seeded by ``seed``. How far the exact result moves when the data moves by a relative
        ``rel``: the sensitivity the wide trial allows for (:meth:`kernelgym.judge.session.Session.wide_allowances`).
        One moved result at a time, never kept here (L1/15's is 9.8 GB in float64). False where
        :meth:`exact_outputs` is ``None``.

        In opposite pairs because where the result is a threshold's (a gate's sigmoid, a saturated tanh, of terms
        that cancel) only a move towards the threshold shows how far a rounding can take it: honest TF32 kernels
        flipped such elements (H100, db7c380: L2/15, L2/20 and three more), and with two independent moves instead
        a GLU failed 7 of 30 seeds on the CPU (none with two pairs). The inputs are made and the float64 model
        copied once for all moves. ``off_device`` and ``make_room`` as in :meth:`exact_outputs`: on the host, each
        moved forward runs inside ``off_device``, and ``each`` outside (it may compare with results on the GPU)."""
        import copy

        import torch

        def run(exact_model, inputs, off):
            device = next((x.device for x in input_leaves(inputs) if torch.is_tensor(x)), torch.device(self.device))
            gen = torch.Generator(device=device)  # where the float64 model runs (the host when the GPU was full)
            gen.manual_seed(seed % (2 ** 63))
            moved = copy.deepcopy(exact_model)
            exact_params, moved_params = list(exact_model.parameters()), list(moved.parameters())
            index = 0
            for _ in range(pairs):
                start = gen.get_state()
                for sign in (1.0, -1.0):
                    gen.set_state(start)  # the same draws, the other way

                    def move(x):
                        u = torch.rand(x.shape, generator=gen, device=x.device, dtype=x.dtype) * 2 - 1
                        return x * (1 + sign * rel * u)

                    for exact, param in zip(exact_params, moved_params):
                        if param.is_floating_point():
                            param.copy_(move(exact))
                    with off():
                        outputs = as_tuple(moved(*map_tensors(
                            lambda x: move(x) if x.dtype == torch.float64 else x, inputs)))
                    each(index, outputs)
                    index += 1
            return True

        return bool(self._run_exact(task, init_seed, seed, outlier, run, off_device, make_room))

    def _run_exact(self, task: Task, init_seed: int, seed: int, outlier: int, run=None,
                   off_device: Callable[[], ContextManager] = contextlib.nullcontext,
                   make_room: Callable[[], bool] = lambda: False):
        """Run the float64 copy of the model (made once per model) on the upcast inputs, or ``run(model,
        inputs, off)`` instead of the plain call; ``None`` when the model cannot run in float64. Where the GPU runs
        out of memory (L1/15's float64 input alone is 9.8 GB, beside other evaluations: H100, 7790d75), once more on
        the GPU where ``make_room()`` reserved the memory for it, else (or out of memory again) on the host, from
        the same inputs (:meth:`_exact_on`), the model's calls inside ``off_device`` (``off``): they took 58 s on
        the H100's host and 154 s on the H200's, where nothing else needs the caller's GPU hold."""
        import torch

        module, model = self.model(task, init_seed)
        for attempt in range(2):  # the second where the memory was reserved for it after the first ran out
            if attempt:
                if not make_room():
                    break
                self.release_cached_memory()  # what the first attempt left in the allocator's cache
            try:
                return self._exact_on(self.device, task, module, model, seed, outlier, run, contextlib.nullcontext)
            except torch.OutOfMemoryError:
                if self.on_cpu:
                    return None
            except (RuntimeError, TypeError, NotImplementedError):
                return None
        try:
            return self._exact_on("cpu", task, module, model, seed, outlier, run, off_device)
        except (RuntimeError, TypeError, NotImplementedError):
            return None

    def _exact_on(self, device: str, task: Task, module, model, seed: int, outlier: int, run, off):
        """:meth:`_run_exact` with the float64 model and inputs on ``device``: the inputs are made on this side's
        device (its generator draws them) and then moved. On another device than this side's, the kept float64
        copy moves there and is no longer kept (it is made again when next needed), so the GPU has it no more."""
        import copy

        import torch

        inputs = map_tensors(lambda x: x.to(device).to(torch.float64) if x.is_floating_point() and not x.is_complex()
                             else x.to(device), make_inputs(module, seed, self.device, outlier))
        if device == self.device:
            cached = self._references[task.key]
            if cached.get("exact", (None,))[0] is not model:  # one copy at a time: it is twice the parameters
                cached["exact"] = (model, copy.deepcopy(model).to(torch.float64))
            exact_model = cached["exact"][1]
        else:
            held = self._references[task.key].pop("exact", None)
            exact_model = (held[1].to(device) if held is not None and held[0] is model
                           else copy.deepcopy(model).to(device=device, dtype=torch.float64))
        # the pinned settings are CUDA's and cuDNN's only: a run on the host needs none, and holds not their lock
        # (other evaluations' references wait on it; H200, c27665c: L1/15's float64 result took 154 s on the host)
        numerics = reference_numerics() if torch.device(device).type == "cuda" else contextlib.nullcontext()
        with torch.no_grad(), numerics:
            if run is not None:
                return run(exact_model, inputs, off)
            with off():
                return as_tuple(exact_model(*inputs))

    def top_kernels(self, task: Task, init_seed: int) -> list[dict]:
        """The eager reference's kernels with the most device time in one forward (GPU only; ``[]`` on the CPU),
        profiled once per task and kept (:func:`kernelgym.judge.profile.top_kernels`)."""
        if self.on_cpu:
            return []
        key = task.key
        if key not in self._top_kernels:
            from kernelgym.judge.profile import profile_forward

            module, model = self.model(task, init_seed)

            def profile() -> dict:
                try:
                    with reference_numerics():
                        return profile_forward(model, make_inputs(module, TIMING_SEED, self.device), self.device,
                                               [])[0]
                except RuntimeError:  # feedback only: a profiler that cannot start never fails an evaluation
                    return {}

            streams.settle(self.device)  # the model built on this thread's stream, whole before the other reads it
            report = PROFILER_THREAD.submit(profile).result()
            self._top_kernels = {key: report.get("top_kernels") or []}  # one task's at a time, like its model
        return self._top_kernels[key]

    # -- timing --------------------------------------------------------------------------------------------------
    def timer(self, task: Task, prof: EvalProfile):
        """A warmed-up :class:`~kernelgym.judge.timing.CallTimer` of the eager reference, for interleaved timing."""
        module, model = self.model(task, 0)
        timer = ReferenceTimer(model, lambda i: make_inputs(module, call_seed(TIMING_SEED, i), self.device),
                               self.device, method=self.timing_method)
        timer.warm_up(self.timing_config(prof).warmup)
        return timer

    def timing_config(self, prof: EvalProfile):
        return prof.cpu_timing if self.on_cpu else prof.timing

    def baseline_ms(self, task: Task, prof: EvalProfile, kind: str = "eager") -> dict:
        """Reference timing on this device (``kind`` ``"eager"`` or ``"compile"`` for ``torch.compile``), measured
        like the candidate's and cached per (task, device, dtype, torch version, kind). Evaluations time the
        eager reference interleaved with the candidate instead (:meth:`timer`); this measures it on its own."""
        from kernelgym.judge.timing import time_calls

        hit = self.cached_baseline(task, kind)
        if hit is not None:
            return hit
        module, model = self.model(task, 0)
        if kind == "compile":
            model = self.compiled(task)
            if isinstance(model, str):  # torch.compile could not handle the reference: no baseline
                return self._store(task, kind, {"median_ms": None, "error": model})
        try:
            with COMPILE_LOCK if kind == "compile" else contextlib.nullcontext():  # a call may recompile
                times = time_calls(model, lambda i: make_inputs(module, call_seed(TIMING_SEED, i), self.device),
                                   self.device, self.timing_config(prof), timer_cls=RunnerTimer,
                                   method=self.timing_method)
        except Exception as exc:  # noqa: BLE001 - e.g. torch.compile failing on a later call: no baseline
            if kind != "compile":
                raise
            return {"median_ms": None, "error": f"{type(exc).__name__}: {str(exc)[:200]}"}
        return self.store_baseline(task, times, kind)

    def cached_baseline(self, task: Task, kind: str = "eager") -> dict | None:
        return self.baselines.get(self._key(task, kind))

    def store_baseline(self, task: Task, times: list[float], kind: str = "eager", **extra) -> dict:
        """Summarize reference timings, cache them and return the summary."""
        return self._store(task, kind, self.summarize_baseline(times, **extra))

    @staticmethod
    def summarize_baseline(times: list[float], **extra) -> dict:
        """The summary :meth:`store_baseline` caches, without caching it: for a figure timed beside a candidate,
        which is the cache's only once that evaluation was accepted (:meth:`keep_baseline`)."""
        from kernelgym.judge.timing import summarize

        return {**summarize(times), **extra}

    def keep_baseline(self, task: Task, base: dict, kind: str = "eager") -> dict:
        """Cache ``base``, the eager figure an evaluation timed interleaved with its candidate and confirmed
        (:meth:`kernelgym.judge.runner.Judge._confirm_baseline`), once that evaluation was accepted with no flag:
        the same rule as a batch's shared figure (:meth:`kernelgym.judge.batch.BatchPlan.offer_baseline`). A figure
        cached while the candidate was still being judged was every later caching evaluation's denominator even
        where that candidate ended rejected or incorrect (docs/SECURITY.md, cross-evaluation red team)."""
        kept = {k: v for k, v in base.items() if k != "how"}
        return self._store(task, kind, kept)

    def _store(self, task: Task, kind: str, summary: dict) -> dict:
        self.baselines.put(self._key(task, kind), summary)
        return summary

    def _key(self, task: Task, kind: str) -> str:
        """The cache key of a baseline; a timing method other than the first's is part of it (its figures differ
        by the host latency it leaves out)."""
        from kernelgym.judge.timing import TIMING_METHODS

        method = "" if self.timing_method == TIMING_METHODS[0] else f"|{self.timing_method}"
        return self.baselines.key(task, self.device_name, self.torch_version, kind + method)

    def compiled(self, task: Task):
        """``torch.compile`` of the reference model, compiled (one call made); an error string if it failed."""
        key = task.key
        cache = self._compiled
        if key not in cache:
            import torch

            module, model = self.model(task, 0)
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

    def ceilings(self, alone=contextlib.nullcontext) -> dict:
        """This GPU's measured ceilings (:func:`kernelgym.hardware.measure_ceilings`), measured once and cached.
        ``alone``: a context manager factory that holds the GPU for this process alone while they are measured (the
        judge's exclusive hold): in batch B at ea9fd72 (H100) honest TF32 kernels at 190-210 TFLOP/s were flagged
        ``above_measured_ceiling``, half of the 416.6 the same GPU measured alone, so the pool's first measurement,
        beside other evaluations' work, must have come out below that. The measurement switches TF32
        on and off process-wide, so it also holds :func:`~kernelgym.judge.numerics.settings_held`: no reference
        runs under its switch."""
        if self.on_cpu:
            return {}
        from kernelgym.hardware import measure_ceilings

        key = f"ceilings|{self.device_name}|{self.torch_version}"
        hit = self.baselines.get(key)
        if hit is None:
            with alone(), settings_held():
                hit = self.baselines.get(key) or measure_ceilings(self.device)
            self.baselines.put(key, hit)
        return hit
