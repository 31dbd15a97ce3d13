"""The Ray evaluation pool and the vector env on a local Ray cluster with fake GPU resources (CPU judges)."""

from __future__ import annotations

import time

import numpy as np
import pytest

ray = pytest.importorskip("ray")

from conftest import DATA, GOOD, candidate, local_ray  # noqa: E402
from kernelgym.judge.admission import SharedExclusiveLock  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    yield from local_ray(num_gpus=2)


@pytest.fixture(scope="module")
def pool(cluster, tmp_path_factory):
    from kernelgym.evaluators.ray_pool import RayEvalPool

    p = RayEvalPool(concurrency_per_gpu=2, judge_kwargs={"cache_dir": str(tmp_path_factory.mktemp("c"))})
    yield p
    p.close()


def test_one_actor_per_gpu_resource(pool):
    infos = pool.actor_info()
    assert len(infos) == 2 and len({i["pid"] for i in infos}) == 2
    assert sorted(i["visible"] for i in infos) == ["0", "1"]  # Ray gave each actor its own (fake) GPU


def test_an_actors_torch_gets_its_share_of_the_nodes_cpus(pool):
    """Ray starts the actors (no CPU asked) with one OpenMP thread; each sets its torch to the node's CPUs over its
    GPUs (here 2 fake GPUs), at least one."""
    import os

    from kernelgym.evaluators.ray_pool import runner_threads

    cpus = len(os.sched_getaffinity(0))
    assert [i["torch_threads"] for i in pool.actor_info()] == [runner_threads(cpus, 2)] * 2
    assert runner_threads(16, 1) == 16 and runner_threads(128, 8) == 16 and runner_threads(2, 0) == 2
    assert runner_threads(4, 8) == 1 and runner_threads(6, 4.0) == 1


@pytest.mark.slow
def test_n_candidates_in_n_results_out_in_order(pool, relu_task):
    texts = [GOOD, candidate(expr="x"), "no code", GOOD.replace("256", "128"), candidate(pre="raise ValueError('v')")]
    before = pool.cpu_seconds()
    results = pool.evaluate_many([(relu_task, t) for t in texts])
    assert [r.status for r in results] == ["ok", "incorrect", "compile_error", "ok", "runtime_error"]
    after = pool.cpu_seconds()  # the judges' CPU time grew
    assert len(after) == pool.num_actors and sum(after) > sum(before)
    unordered = dict(pool.evaluate_many([(relu_task, t) for t in texts[:3]], ordered=False))
    assert sorted(unordered) == [0, 1, 2]


@pytest.mark.slow
def test_a_batch_of_two_tasks_fed_out_of_input_order_comes_back_in_input_order(pool, relu_task):
    """The pool's task feeder submits the heavier task's samples first (kernelgym.evaluators.order); the results
    still come back in input order, with ``interleave`` and without."""
    from kernelgym.tasks import load_tasks

    heavy = load_tasks().get("L1/15_relu")  # far above the test task's footprint; a text without code fails fast
    items = [(relu_task, GOOD), (heavy, "no code"), (relu_task, candidate(expr="x")), (heavy, "no code, again")]
    for interleave in (True, False):
        results = pool.evaluate_many(items, interleave=interleave)
        assert [(r.task_id, r.status) for r in results] == [
            (relu_task.id, "ok"), (heavy.id, "compile_error"), (relu_task.id, "incorrect"),
            (heavy.id, "compile_error")], interleave


def test_identical_candidates_are_evaluated_once(pool, relu_task):
    text = GOOD.replace("256", "512")
    before = pool.stats["deduplicated"]
    first, second = pool.evaluate_many([(relu_task, text), (relu_task, text)])
    assert first.status == second.status == "ok"
    assert pool.stats["deduplicated"] == before + 1
    assert first is not second


def test_a_timeout_or_a_judge_fault_is_not_remembered_for_an_identical_submission(pool):
    """Another evaluation may have held the machine (a red-team helper stalled the runner's thread for a minute and
    an honest candidate timed out): such an end says nothing settled about the text, so a resubmission is judged
    again; a settled verdict is remembered."""
    import concurrent.futures as cf

    from kernelgym.judge.result import EvalResult

    ends = {"timeout": EvalResult(task_id="t", status="timeout"), "fault": EvalResult(task_id="t", status="crashed"),
            "ok": EvalResult(task_id="t", status="ok"), "raised": None}
    ends["fault"].add_flag("judge_error", "the judge failed")
    for key, result in ends.items():
        future = cf.Future()
        if result is None:
            future.set_exception(RuntimeError("the actor died"))
        else:
            future.set_result(result)
        with pool._lock:
            pool._memo[f"test-{key}"] = future
        pool._forget_unsettled(f"test-{key}", future)
    with pool._lock:
        kept = {key for key in ends if f"test-{key}" in pool._memo}
        for key in ends:
            pool._memo.pop(f"test-{key}", None)
    assert kept == {"ok"}


def test_a_killed_actor_is_restarted_and_its_work_retried(pool, relu_task):
    texts = [GOOD.replace("256", str(2 ** (i + 5))) for i in range(6)]
    futures = [pool.submit(relu_task, t) for t in texts]
    time.sleep(1.0)
    ray.kill(pool.actors[0], no_restart=False)
    results = [f.result(timeout=600) for f in futures]
    assert len(results) == 6
    assert all(r.status == "ok" for r in results), [r.message for r in results]


def test_closing_with_abort_ends_the_evaluations_in_flight_at_once(cluster, relu_task, tmp_path):
    from conftest import worker_processes
    from kernelgym.evaluators.ray_pool import RayEvalPool

    p = RayEvalPool(num_gpus=1, concurrency_per_gpu=2, dedupe=False, gpus_per_actor=0,
                    judge_kwargs={"cache_dir": str(tmp_path)})
    actor_pid = p.actor_info()[0]["pid"]
    hang = candidate(pre="while True: pass")  # stuck until the compile stage's 120 s limit
    futures = [p.submit(relu_task, hang) for _ in range(2)]
    time.sleep(8)  # both running in the actor by now
    assert worker_processes(owner=actor_pid)
    started = time.monotonic()
    p.close(abort=True)
    assert time.monotonic() - started < 30
    results = [f.result(timeout=0) for f in futures]
    assert [r.status for r in results] == ["crashed", "crashed"]
    assert all("abort=True" in r.message for r in results), [r.message for r in results]
    deadline = time.monotonic() + 15  # the actor's workers die with it
    while worker_processes(owner=actor_pid) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert worker_processes(owner=actor_pid) == []


def test_backpressure_bounds_in_flight_work(cluster, relu_task, tmp_path):
    from kernelgym.evaluators.ray_pool import RayEvalPool

    p = RayEvalPool(num_gpus=1, concurrency_per_gpu=1, max_in_flight=1, dedupe=False, gpus_per_actor=0,
                    judge_kwargs={"cache_dir": str(tmp_path)})
    try:
        t0 = time.monotonic()
        f1 = p.submit(relu_task, GOOD)
        f2 = p.submit(relu_task, GOOD)  # blocks until f1 is done
        assert f1.done()
        assert f2.result().status == "ok" and time.monotonic() - t0 > 0
    finally:
        p.close()


def test_vector_env_steps_episodes_concurrently(pool):
    from kernelgym.envs.vector import KernelVectorEnv

    venv = KernelVectorEnv(3, pool, tasks=str(DATA / "tasks"), max_turns=2)
    obs, info = venv.reset(seed=0)
    assert len(obs["prompt"]) == 3 and all("ModelNew" in p for p in obs["prompt"])
    obs, rewards, terms, truncs, infos = venv.step([GOOD, candidate(expr="x"), "junk"])
    assert venv.observation_space.contains(obs)
    assert terms.tolist() == [True, False, False] and truncs.tolist() == [False, False, False]
    assert rewards[0] > rewards[1] >= 0 and rewards[2] == 0
    obs, rewards, terms, truncs, infos = venv.step([GOOD, GOOD, "junk"])
    assert obs["turn"].tolist() == [0, 2, 2]            # env 0 was auto-reset (next-step mode)
    assert rewards[0] == 0 and terms.tolist() == [False, True, False] and truncs.tolist() == [False, False, True]
    assert isinstance(obs["feedback"][1], str) and "Status: ok" in obs["feedback"][1]
    assert np.asarray(obs["best_speedup"]).shape == (3, 1)
    venv.close()


def test_the_pool_is_an_evaluator_returning_eval_results(pool, relu_task):
    import concurrent.futures as cf
    import json

    from kernelgym.evaluators import Evaluator, as_evaluator
    from kernelgym.judge.result import EvalResult

    assert isinstance(pool, Evaluator) and as_evaluator(pool) is pool
    future = pool.submit(relu_task, GOOD.replace("256", "64"), backend="triton", profile="quick",
                         torch_policy="partial")
    assert isinstance(future, cf.Future) and type(future.result()) is EvalResult
    assert json.loads(pool.hardware_json())["kind"] == "cpu"


def test_the_torch_policy_reaches_the_actors_judge(pool, relu_task):
    from test_torch_policy import TORCH_THEN_OWN_EPILOGUE

    items = [(relu_task, TORCH_THEN_OWN_EPILOGUE)]
    before = pool.stats["deduplicated"]
    [strict] = pool.evaluate_many(items, torch_policy="strict")
    [partial] = pool.evaluate_many(items, torch_policy="partial")
    [default] = pool.evaluate_many(items)
    assert (strict.status, strict.torch_policy) == ("rejected", "strict"), strict.message
    assert strict.flags[0]["name"] == "torch_fallback"
    assert (partial.status, partial.torch_policy) == ("ok", "partial"), partial.message
    assert (default.status, default.torch_policy) == ("ok", "partial")
    assert pool.stats["deduplicated"] == before + 1  # the policy is part of the deduplication key
    with pytest.raises(ValueError, match="strict, partial, off"):
        pool.submit(relu_task, GOOD, torch_policy="lenient")


def test_an_env_on_the_pool_passes_its_torch_policy(pool, relu_task):
    import gymnasium as gym

    import kernelgym  # noqa: F401
    from test_torch_policy import TORCH_THEN_OWN_EPILOGUE

    env = gym.make("KernelGym-L1-v0", tasks=str(DATA / "tasks"), evaluator=pool, torch_policy="strict")
    env.reset(seed=0, options={"task_id": relu_task.id})
    *_, info = env.step(TORCH_THEN_OWN_EPILOGUE)
    assert (info["result"]["status"], info["result"]["torch_policy"]) == ("rejected", "strict")
    env.close()  # the pool is the caller's: still usable
    assert pool.evaluate_many([(relu_task, GOOD)])[0].status == "ok"


def test_shared_exclusive_lock_excludes_sharers_while_exclusive():
    import threading

    lock = SharedExclusiveLock()
    events = []

    def sharer(i):
        with lock.shared():
            events.append(("s+", i))
            time.sleep(0.05)
            events.append(("s-", i))

    def writer():
        with lock.exclusive():
            events.append(("x+", 0))
            time.sleep(0.05)
            events.append(("x-", 0))

    threads = [threading.Thread(target=sharer, args=(i,)) for i in range(3)] + [threading.Thread(target=writer)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    inside = 0
    for kind, _ in events:
        if kind == "x+":
            assert inside == 0
            inside = -1
        elif kind == "x-":
            inside = 0
        elif kind == "s+":
            assert inside >= 0
            inside += 1
        else:
            inside -= 1


def test_memory_budget_admits_what_fits_and_a_lone_oversized_evaluation():
    import threading

    from kernelgym.judge.admission import MemoryBudget

    budget = MemoryBudget(10)
    peak, lock = [0, 0], threading.Lock()

    def run(nbytes):
        with budget.reserve(nbytes):
            with lock:
                peak[0] = max(peak[0], budget.reserved)
                peak[1] = max(peak[1], budget.holders)
            time.sleep(0.05)

    threads = [threading.Thread(target=run, args=(4,)) for _ in range(6)] + [threading.Thread(target=run, args=(99,))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not any(t.is_alive() for t in threads)  # the oversized one ran too (alone, capped at the capacity)
    assert peak[0] <= 10 and peak[1] == 2  # never more than fits; two 4-byte evaluations at once
    assert budget.reserved == 0 and budget.holders == 0
