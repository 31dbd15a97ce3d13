"""RayEvalPool: evaluations spread over every GPU of a Ray cluster, with backpressure, retries and deduplication.

Layout: one :class:`GpuEvaluator` actor per GPU (``num_gpus=1``), each a threaded actor running up to
``concurrency_per_gpu`` evaluations at once; the calls in flight beyond them wait at the actor's gate, which starts
next the first whose GPU memory need fits beside those running (:mod:`kernelgym.evaluators.dispatch`). Inside an actor every evaluation has its own worker process (the
judge's isolation is unchanged), and each of the actor's judges keeps fresh workers started ahead
(``prestart_workers``, :mod:`kernelgym.judge.launch`; pass ``judge_kwargs={"prestart_workers": False}`` to turn it
off); worker start-up, Python import, static checks and Triton/CUDA compilation overlap
freely, compile and correctness share the GPU, and timing (candidate and baselines) takes the GPU exclusively
(:class:`~kernelgym.judge.admission.SharedExclusiveLock`). CUDA candidates are first built by a CPU Ray task
(``prebuild``) into the shared, source-keyed build cache, so the GPU actor only loads them.

Contracts (it is a :class:`kernelgym.evaluators.Evaluator`):

* ``submit(task, text, *, backend, profile, torch_policy)`` returns a :class:`concurrent.futures.Future` of an
  :class:`EvalResult`; at most ``max_in_flight`` evaluations are outstanding (``submit`` blocks beyond that:
  backpressure). ``evaluate_many`` returns the results in input order; ``hardware_json`` is an actor's view.
* An actor that dies is restarted by Ray; its evaluations are retried once, then reported as ``crashed``.
* Identical (task, backend, profile, torch policy, program) submissions are evaluated once; later ones get a copy.
* ``torch_policy`` (``"strict"``, ``"partial"`` (default), ``"off"``) travels to the actor's Judge with each
  evaluation (and to the CUDA prebuild); an invalid one raises ValueError in ``submit``.
* Actors return :class:`EvalResult` objects (Ray pickles them); no dict crosses the pool.
* Works with ``ray.init()`` on one machine (tests use fake GPU counts) and ``ray.init(address="auto")``.
"""

from __future__ import annotations

import collections
import concurrent.futures as cf
import copy
import hashlib
import os
import threading
import uuid
from typing import Iterable, Iterator

from kernelgym.hardware import require_gpus
from kernelgym.judge import policy
from kernelgym.judge.result import EvalResult
from kernelgym.tasks import Task
from kernelgym.validation import positive_int

#: batch plans an actor keeps (the most recent); older ones and their reference outputs are dropped
ACTOR_PLANS = 4
#: GPU holds an actor's lock keeps (the most recent) for :meth:`RayEvalPool.gpu_holds`
ACTOR_HOLDS = 1 << 16


def runner_threads(cpus: int, gpus_on_node: float) -> int:
    """Intra-op threads for an actor's torch: the node's ``cpus`` shared among its GPUs (each has one actor), at
    least one. Ray starts an actor that asks for no CPU (as :class:`RayEvalPool`'s do) with ``OMP_NUM_THREADS=1``,
    so without this the runner's host work ran on one core: the float64 reference where it has no room on the GPU
    (L1/15's, 9.8 GB, on the H100: 10-41 s a row in batch B at 9c1319f, while the other L1/15 rows, one at a time
    by their memory, waited behind it). The workers are not affected: each gets ``OMP_NUM_THREADS`` of its own."""
    return max(1, int(cpus) // max(1, int(gpus_on_node)))


def _node_gpus() -> float:
    """The GPU resource of the Ray node this process runs on (0 where it has none or cannot be found)."""
    import ray

    here = ray.get_runtime_context().get_node_id()
    return next((node.get("Resources", {}).get("GPU", 0) for node in ray.nodes() if node.get("NodeID") == here), 0)


def _actor_class():
    import ray

    @ray.remote
    class GpuEvaluator:
        """Evaluates on the GPU Ray assigned to it (or the CPU when the cluster has none)."""

        def __init__(self, judge_kwargs: dict, slots: int):
            import torch

            from kernelgym.evaluators.dispatch import SlotGate, device_memory
            from kernelgym.evaluators.local import ThreadJudges
            from kernelgym.judge.admission import SharedExclusiveLock

            self.device = "cuda:0" if torch.cuda.is_available() else "cpu"
            torch.set_num_threads(runner_threads(len(os.sched_getaffinity(0)), _node_gpus()))
            self.lock = SharedExclusiveLock(keep_holds=ACTOR_HOLDS)
            self.judges = ThreadJudges(device=self.device, gpu_lock=self.lock, **judge_kwargs)
            #: ``slots`` evaluations at once, one judge per slot; the calls beyond them (the pool keeps more in
            #: flight) wait at the gate, which starts next the first whose memory need fits (evaluators/dispatch.py)
            self.gate = SlotGate(slots, **device_memory(self.device))
            self.plans: collections.OrderedDict = collections.OrderedDict()  # (batch id, task key) -> BatchPlan
            self.plans_lock = threading.Lock()

        def plan(self, batch_id: str | None, task: Task):
            """The batch plan of ``task`` in batch ``batch_id`` (made on first use; the last
            :data:`ACTOR_PLANS` kept, so a finished batch's reference outputs leave the GPU)."""
            if batch_id is None:
                return None
            from kernelgym.judge.batch import BatchPlan

            key = (batch_id, task.key)
            with self.plans_lock:
                if key not in self.plans:
                    self.plans[key] = BatchPlan(task)
                    while len(self.plans) > ACTOR_PLANS:
                        self.plans.popitem(last=False)[1].close()  # its outputs leave the budget's count now
                self.plans.move_to_end(key)
                return self.plans[key]

        def shutdown(self) -> int:
            """Stop every judge's spare worker; returns how many judges there were."""
            self.judges.close()
            return len(self.judges.all())

        def evaluate(self, task: dict, text: str, backend: str, profile, torch_policy: str,
                     batch_id: str | None = None) -> EvalResult:
            task = Task.from_dict(task)
            with self.gate.slot(self.judges.get(slot=0).memory_need(task)) as slot:
                return self.judges.get(slot=slot).evaluate(task, text, backend=backend, profile=profile,
                                                           torch_policy=torch_policy, batch=self.plan(batch_id, task))

        def gpu_holds(self, since: float = 0.0) -> list[tuple[str, float, float]]:
            """The GPU lock's kept holds that ended at or after ``since`` (``time.monotonic()``)."""
            return [hold for hold in list(self.lock.holds) if hold[2] >= since]

        def cpu_seconds(self) -> float:
            """This actor's process CPU time so far (user and system, all its threads: the judges' own work; not
            the workers', which are killed with their sandbox and never reaped here)."""
            times = os.times()
            return times.user + times.system

        def cpu_profile_start(self, interval_s: float) -> None:
            """Start sampling where this process's CPU goes (:class:`~kernelgym.evaluators.cpu_sampler.CpuSampler`)."""
            from kernelgym.evaluators.cpu_sampler import CpuSampler

            self.sampler = CpuSampler(interval_s)
            self.sampler.start()

        def cpu_profile_stop(self) -> dict:
            """The profile since :meth:`cpu_profile_start` (``CpuSampler.stop``)."""
            return self.sampler.stop()

        def hardware_json(self) -> str:
            from kernelgym.hardware import detect

            return detect(self.device).to_json()

        def info(self) -> dict:
            import torch

            cap = torch.cuda.get_device_capability(0) if self.device != "cpu" else None
            return {"pid": os.getpid(), "device": self.device,
                    "arch": f"{cap[0]}.{cap[1]}" if cap else None,
                    "visible": os.environ.get("CUDA_VISIBLE_DEVICES"), "torch_threads": torch.get_num_threads(),
                    "runner_sync": os.environ.get("KERNELGYM_RUNNER_SYNC")}

    return GpuEvaluator


def _prebuild_task():
    import ray

    @ray.remote(num_cpus=1)
    def prebuild(task: dict, text: str, judge_kwargs: dict, arch: str | None, profile,
                 torch_policy: str) -> EvalResult | None:
        """Build a CUDA candidate on a CPU worker into the shared build cache; a failed build is the verdict."""
        from kernelgym.judge.runner import Judge

        judge = Judge(device="cpu", **judge_kwargs)
        return judge.prebuild(Task.from_dict(task), text, arch=arch, profile=profile, torch_policy=torch_policy)

    return prebuild


class RayEvalPool:
    """Evaluate many candidates over a Ray cluster. See the module docstring for the contracts.

    Args:
        num_gpus: actors to start (default: the cluster's GPU count; 1 CPU actor when it has none).
        concurrency_per_gpu: evaluations one actor runs at once (they share the GPU except while timing).
        max_in_flight: outstanding evaluations before ``submit`` blocks (default: the total concurrency plus a
            quarter of it, at least one per actor: enough queued to refill a freed slot at once, few enough that
            a caller's wait stays near one evaluation's service time instead of two). The calls beyond an actor's
            concurrency wait at its gate, which starts next the first whose memory need fits
            (:mod:`kernelgym.evaluators.dispatch`). Twice the concurrency in flight was measured on an H100 (batch
            B, 9b9e2c1): p95 turnaround 81.8 s, 1447.7 evaluations per GPU-hour, without a baseline on the same
            machine (docs/BENCHMARKS.md, twenty-third session); the default stayed.
        dedupe: evaluate identical submissions once.
        judge_kwargs: passed to each actor's :class:`~kernelgym.judge.runner.Judge` (e.g. ``cache_dir``).
        address: passed to ``ray.init`` when Ray is not initialised yet.
        gpus_per_actor: GPU resource each actor asks Ray for (default 1 when the cluster has GPUs, else 0).

    A bad setting (``num_gpus``, ``concurrency_per_gpu`` or ``max_in_flight`` not a positive int,
    ``gpus_per_actor`` negative) is a ValueError or TypeError here, before any actor starts (``num_gpus=0`` made a
    pool whose ``submit`` blocked forever). ``submit`` on a closed pool is a RuntimeError saying so.

    **Pickling** (a :class:`~kernelgym.envs.KernelEnv` on the pool sent to a Ray task, a pool passed to one): the
    copy holds the same actor handles and settings (``judge_kwargs``, ``dedupe``, ``max_in_flight``, ...) and
    evaluates on the same actors, with its own submission threads, in-flight limit, deduplication memo and
    ``stats`` (so ``max_in_flight`` bounds each copy's calls, not their sum; calls beyond an actor's threads wait
    in Ray's queue). The actors stay the original's: a copy's :meth:`close` only stops its own threads (with
    ``abort``, cancels its queued calls) and never stops, kills or restarts an actor; close the original once the
    copies are done (their calls then return ``crashed``). A closed pool cannot be pickled (RuntimeError).
    """

    def __init__(self, num_gpus: int | None = None, concurrency_per_gpu: int = 4, max_in_flight: int | None = None,
                 dedupe: bool = True, judge_kwargs: dict | None = None, address: str | None = None,
                 gpus_per_actor: float | None = None):
        import ray

        for name, value in (("num_gpus", num_gpus), ("concurrency_per_gpu", concurrency_per_gpu),
                            ("max_in_flight", max_in_flight)):
            if value is not None:
                positive_int(name, value)
        if gpus_per_actor is not None:
            if isinstance(gpus_per_actor, bool) or not isinstance(gpus_per_actor, (int, float)):
                raise TypeError(f"gpus_per_actor must be a number, got {type(gpus_per_actor).__name__}")
            if not gpus_per_actor >= 0:  # nan too
                raise ValueError(f"gpus_per_actor must be at least 0, got {gpus_per_actor!r}")
        if not ray.is_initialized():
            ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
        gpus = int(ray.cluster_resources().get("GPU", 0))
        self.num_actors = int(num_gpus) if num_gpus is not None else max(gpus, 1)
        per_actor_gpu = gpus_per_actor if gpus_per_actor is not None else (1 if gpus > 0 else 0)
        require_gpus(self.num_actors * per_actor_gpu, gpus)  # else actors Ray cannot place wait forever
        self.judge_kwargs = dict(judge_kwargs or {})
        cls = _actor_class()
        self.concurrency = concurrency_per_gpu * self.num_actors
        self.max_in_flight = max_in_flight or self.concurrency + max(self.num_actors, self.concurrency // 4)
        # every call in flight has an actor thread (its gate, not Ray's queue, orders them), and two threads more
        # answer gpu_holds and the like while all evaluations run
        self.actors = [cls.options(num_gpus=per_actor_gpu, num_cpus=0, max_concurrency=self.max_in_flight + 2,
                                   max_restarts=-1, max_task_retries=0).remote(self.judge_kwargs, concurrency_per_gpu)
                       for _ in range(self.num_actors)]
        self.dedupe = dedupe
        self._arch: str | None = None
        self._hardware_json: str | None = None
        self._owns_actors = True  # False in a pickled copy: only the original stops the actors
        self._start_local_state()

    def _start_local_state(self) -> None:
        """What belongs to this process alone: submission threads, the in-flight limit, the memo, the stats."""
        self._prebuild = _prebuild_task()
        self._slots = threading.BoundedSemaphore(self.max_in_flight)
        self._executor = cf.ThreadPoolExecutor(max_workers=self.max_in_flight, thread_name_prefix="kg-pool")
        self._next = 0
        self._lock = threading.Lock()
        self._aborted = False  # close(abort=True) killed the actors (or, in a copy, cancelled its calls)
        self._closed = False
        self._memo: "collections.OrderedDict[str, cf.Future]" = collections.OrderedDict()
        self.stats = collections.Counter()

    # -- pickling (a KernelEnv on the pool sent to a Ray task) ---------------------------------------------
    _closed = False  # class defaults: a pool assembled without __init__ (tests' stubs) is open and owns its actors
    _owns_actors = True
    _aborted = False
    _LOCAL_STATE = ("_prebuild", "_slots", "_executor", "_next", "_lock", "_aborted", "_closed", "_memo", "stats")

    def __getstate__(self) -> dict:
        """The actor handles and settings; not this process's threads, memo or stats (see the class docstring)."""
        if self._closed:
            raise RuntimeError("a closed RayEvalPool cannot be pickled: its actors are stopped")
        state = {k: v for k, v in self.__dict__.items() if k not in self._LOCAL_STATE}
        state["_owns_actors"] = False  # a copy never stops the original's actors
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._start_local_state()

    # -- public API ---------------------------------------------------------------------------------------
    def submit(self, task: Task, text: str, *, backend: str = "triton", profile="quick",
               torch_policy: str = policy.DEFAULT, batch_id: str | None = None) -> cf.Future:
        """Queue one evaluation; blocks while ``max_in_flight`` evaluations are outstanding. Evaluations of one
        task with the same ``batch_id`` share a batch plan on the actor that runs them (the reference paid once)."""
        policy.check(torch_policy)
        self._check_open()
        key = self._key(task, text, backend, profile, torch_policy)
        hit = self._deduplicated(key)
        if hit is not None:
            return hit
        self._slots.acquire()
        try:
            return self._submit_holding_slot(key, task, text, backend, profile, torch_policy, batch_id)
        except BaseException:  # e.g. closed meanwhile: the slot is not lost
            self._slots.release()
            raise

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("this RayEvalPool is closed: make a new one to evaluate more")

    def evaluate(self, task: Task, text: str, *, backend: str = "triton", profile="quick",
                 torch_policy: str = policy.DEFAULT) -> EvalResult:
        """Evaluate one candidate (``submit(...).result()``)."""
        return self.submit(task, text, backend=backend, profile=profile, torch_policy=torch_policy).result()

    def evaluate_many(self, items: Iterable[tuple], *, backend: str = "triton", profile="quick",
                      torch_policy: str = policy.DEFAULT, ordered: bool = True,
                      interleave: bool = False) -> list[EvalResult] | Iterator[tuple[int, EvalResult]]:
        """Evaluate ``(task, text)`` pairs. ``ordered``: a list in input order; else ``(index, result)`` pairs
        as they complete. Items are submitted in input order; with ``interleave`` each free slot gets the item
        :class:`~kernelgym.evaluators.order.TaskFeeder` picks instead (the task under way with the fewest in
        flight, light tasks beside heavy ones: off by default, as batch B on an H100 was slower with it, 2141.5
        per GPU-hour against 2372.9 in input order, both memory-bound; docs/BENCHMARKS.md)."""
        from kernelgym.evaluators.base import repeated_task_keys

        policy.check(torch_policy)
        self._check_open()
        items = list(items)
        repeated = repeated_task_keys(task for task, _ in items)  # tasks that occur more than once share a plan
        batch_id = uuid.uuid4().hex
        batch_ids = [batch_id if task.key in repeated else None for task, _ in items]
        if interleave:
            futures = self._submit_fed(items, batch_ids, backend, profile, torch_policy)
        else:
            futures = [self.submit(task, text, backend=backend, profile=profile, torch_policy=torch_policy,
                                   batch_id=batch_ids[i]) for i, (task, text) in enumerate(items)]
        if ordered:
            return [f.result() for f in futures]
        index = {f: i for i, f in enumerate(futures)}
        return ((index[f], f.result()) for f in cf.as_completed(futures))

    def close(self, abort: bool = False) -> None:
        """Stop the actors (their judges' spare workers with them). Evaluations in flight finish first; with
        ``abort`` (what ``kernelgym eval --ray`` does on Ctrl-C) the actors are killed at once instead, every
        evaluation in flight returns ``crashed`` without a retry, and those queued are cancelled."""
        import ray

        if self._closed:  # closing twice is harmless
            return
        self._closed = True
        if not self._owns_actors:  # a pickled copy: the actors are the original's, never stopped here
            if abort:
                self._aborted = True
            self._executor.shutdown(wait=not abort, cancel_futures=abort)
            return
        if abort:
            self._aborted = True
            for actor in self.actors:
                ray.kill(actor, no_restart=True)
            self._executor.shutdown(wait=True, cancel_futures=True)
            return
        self._executor.shutdown(wait=True)
        try:  # spares would also exit on their own once the actor is gone (their stdin reaches end of file)
            ray.get([actor.shutdown.remote() for actor in self.actors], timeout=60)
        except Exception:  # noqa: BLE001 - a dead or stuck actor is killed below all the same
            pass
        for actor in self.actors:
            ray.kill(actor)

    # -- internals -----------------------------------------------------------------------------------------
    def _deduplicated(self, key: str) -> cf.Future | None:
        """A copy of the future of an identical submission still remembered (with ``dedupe``), else ``None``."""
        with self._lock:
            hit = self._memo.get(key) if self.dedupe else None
            if hit is None:
                return None
            self.stats["deduplicated"] += 1
            self._memo.move_to_end(key)
            return _copy_future(hit)

    def _submit_fed(self, items: list[tuple], batch_ids: list, backend: str, profile,
                    torch_policy: str) -> list[cf.Future]:
        """Submit ``items`` (batch id of each in ``batch_ids``) in the order a
        :class:`~kernelgym.evaluators.order.TaskFeeder` gives, each choice made once a slot of ``max_in_flight`` is
        free (on what is in flight then); the futures by input position."""
        from kernelgym.evaluators.order import TaskFeeder

        feeder = TaskFeeder([task for task, _ in items])
        futures: list[cf.Future] = [None] * len(items)  # type: ignore[list-item]
        while True:
            self._slots.acquire()
            i = feeder.next()
            if i is None:
                self._slots.release()
                return futures
            task, text = items[i]
            key = self._key(task, text, backend, profile, torch_policy)
            future = self._deduplicated(key)
            if future is not None:
                self._slots.release()
            else:
                future = self._submit_holding_slot(key, task, text, backend, profile, torch_policy, batch_ids[i])
            future.add_done_callback(lambda _, i=i: feeder.done(i))
            futures[i] = future

    def _submit_holding_slot(self, key: str, task: Task, text: str, backend: str, profile, torch_policy: str,
                             batch_id: str | None) -> cf.Future:
        """Start one evaluation on a slot of ``max_in_flight`` the caller has acquired (released when it ends)."""
        future = self._executor.submit(self._run, task, text, backend, profile, torch_policy, batch_id)
        future.add_done_callback(lambda _: self._slots.release())
        if self.dedupe:
            with self._lock:
                self._memo[key] = future
                while len(self._memo) > 4096:
                    self._memo.popitem(last=False)
            future.add_done_callback(lambda done: self._forget_unsettled(key, done))
        return future

    def _forget_unsettled(self, key: str, future: cf.Future) -> None:
        """Drop ``future`` from the memo when what it ended with says nothing settled about the text: an exception,
        a judge fault or a timeout (another evaluation may have held the machine; a resubmission is judged again)."""
        try:
            result = future.result()
            unsettled = bool(getattr(result, "judge_fault", False)) or getattr(result, "status", None) == "timeout"
        except BaseException:  # noqa: BLE001 - a failed or cancelled future
            unsettled = True
        if unsettled:
            with self._lock:
                if self._memo.get(key) is future:
                    del self._memo[key]

    def _key(self, task: Task, text: str, backend: str, profile, torch_policy: str) -> str:
        """What a verdict depends on besides the judge: the whole task (:func:`task_identity`: its mode and every
        field of its metadata, not only its id and source), the backend, profile, torch policy and the text."""
        name = profile if isinstance(profile, str) else repr(profile)
        parts = (task_identity(task), backend, name, torch_policy, text)
        # surrogatepass: a text holding a lone surrogate (no UTF-8 encodes it) still has its own key; ``submit`` raised
        return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()

    def _pick(self) -> int:
        with self._lock:
            self._next = (self._next + 1) % len(self.actors)
            return self._next

    def _run(self, task: Task, text: str, backend: str, profile, torch_policy: str,
             batch_id: str | None = None) -> EvalResult:
        import ray

        task_dict = task.to_dict()
        if backend == "cuda":
            built = ray.get(self._prebuild.remote(task_dict, text, self.judge_kwargs, self.arch(), profile,
                                                  torch_policy))
            if built is not None:
                self.stats["prebuild_verdicts"] += 1
                return built
        last_error = None
        index = self._pick()
        for attempt in range(2):
            actor = self.actors[(index + attempt) % len(self.actors)]  # the retry goes to another actor if any
            if attempt and len(self.actors) == 1:
                self._wait_alive(actor)
            try:
                result = ray.get(actor.evaluate.remote(task_dict, text, backend, profile, torch_policy, batch_id))
                self.stats["evaluated"] += 1
                return result
            except (ray.exceptions.RayActorError, ray.exceptions.ActorUnavailableError) as exc:
                self.stats["actor_failures"] += 1
                last_error = exc
                if self._aborted:  # killed by close(abort=True): no retry
                    break
        return EvalResult(task_id=task.id, backend=backend, status="crashed", stage="compile",
                          torch_policy=torch_policy,
                          message="the pool was closed with abort=True while this candidate was evaluated"
                          if self._aborted else f"the evaluation actor died twice while evaluating this candidate "
                                                f"({type(last_error).__name__})")

    @staticmethod
    def _wait_alive(actor, timeout: float = 120.0) -> None:
        """Wait for a restarted actor to answer again (best effort)."""
        import ray

        try:
            ray.get(actor.info.remote(), timeout=timeout)
        except Exception:  # noqa: BLE001 - the retry reports the failure
            pass

    def arch(self) -> str | None:
        """The GPUs' compute capability (e.g. ``"9.0"``), asked of an actor once."""
        if self._arch is None:
            import ray

            self._arch = ray.get(self.actors[0].info.remote()).get("arch") or ""
        return self._arch or None

    @property
    def device(self) -> str:
        """The actors' device kind (``"cuda:0"`` inside each actor, or ``"cpu"``)."""
        return self.actor_info()[0]["device"]

    def hardware_json(self) -> str:
        """The hardware spec as seen by an actor (the machine that runs the candidates)."""
        if self._hardware_json is None:
            import ray

            self._hardware_json = ray.get(self.actors[0].hardware_json.remote())
        return self._hardware_json

    def gpu_holds(self, since: float = 0.0) -> list[list[tuple[str, float, float]]]:
        """Per actor (one GPU each), its GPU lock's records that ended at or after ``since``: ``(kind, start, end)``,
        kind ``"shared:<step>"`` (build, trials, checks, ...), ``"exclusive"`` (timing) or ``"drain"`` (a timer
        waiting for the steps in flight; see :class:`~kernelgym.judge.admission.SharedExclusiveLock`), times in
        ``time.monotonic()`` seconds of the actor's machine (comparable with the caller's on that machine only); the
        last :data:`ACTOR_HOLDS` of each actor. For measuring how busy the GPUs were."""
        import ray

        return ray.get([a.gpu_holds.remote(since) for a in self.actors])

    def cpu_seconds(self) -> list[float]:
        """Per actor, the CPU seconds its process (every judge thread, not the workers) has used so far.
        Differences over a batch give the judges' host cost per evaluation, all of it in one process per GPU
        whose Python work shares one interpreter lock (for measuring, ``benchmarks/throughput.py``)."""
        import ray

        return ray.get([a.cpu_seconds.remote() for a in self.actors])

    def cpu_profile_start(self, interval_s: float = 0.01) -> None:
        """Start sampling, in every actor's process, where its CPU goes and how long its threads wait for the
        interpreter lock (:class:`~kernelgym.evaluators.cpu_sampler.CpuSampler`; for measuring)."""
        import ray

        ray.get([a.cpu_profile_start.remote(interval_s) for a in self.actors])

    def cpu_profile_stop(self) -> list[dict]:
        """Per actor, its profile since :meth:`cpu_profile_start` (``CpuSampler.stop``'s dict)."""
        import ray

        return ray.get([a.cpu_profile_stop.remote() for a in self.actors])

    def actor_info(self) -> list[dict]:
        import ray

        return ray.get([a.info.remote() for a in self.actors])



def task_identity(task: Task) -> str:
    """Every field of ``task`` a verdict depends on, as text: its id, set and source, and the mode and metadata the
    reference is built, run and compared under (``dtype``, tolerances, small shapes, check, formulas). Not the
    path it was read from. The id and source alone named two tasks one: a task file without a ``mode`` in its
    metadata is ``eval`` in the bundled set and ``as_constructed`` in a folder's (training-mode BatchNorm and
    Dropout there), and a pool's deduplication handed the verdict of one to the other."""
    return repr((task.id, task.task_set, task.digest, task.mode, task.dtype, task.atol, task.rtol,
                 sorted(task.small.items()), task.check, task.flops, task.bytes, task.precision))


def _copy_future(source: cf.Future) -> cf.Future:
    """A future that completes with a copy of ``source``'s result (so callers never share one object)."""
    out: cf.Future = cf.Future()

    def done(f: cf.Future) -> None:
        try:
            out.set_result(copy.deepcopy(f.result()))
        except Exception as exc:  # noqa: BLE001
            out.set_exception(exc)

    source.add_done_callback(done)
    return out
