"""Workers started one evaluation ahead (kernelgym.judge.launch): same verdicts, same isolation, nothing left over."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from kernelgym.judge import sandbox
from conftest import DATA, GOOD, candidate, worker_processes


needs_namespaces = pytest.mark.skipif(sandbox.probe() is not None, reason="spares are kept only in the sandbox")


@pytest.fixture
def prestarted(tmp_path):
    from kernelgym.judge.runner import Judge

    judge = Judge(device="cpu", cache_dir=tmp_path, static_checks=False, prestart_workers=True)
    yield judge
    judge.close()


def wait_until_gone(owner=None, timeout=15.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while worker_processes(owner) and time.monotonic() < deadline:
        time.sleep(0.2)
    return worker_processes(owner)


@needs_namespaces
def test_verdicts_are_unchanged_and_only_the_idle_spare_stays(prestarted, relu_task):
    cases = [(GOOD, "ok"), (candidate(imports="import os", pre="os.abort()"), "crashed"),
             (candidate(expr="x"), "incorrect"), (GOOD, "ok")]
    for text, expected in cases:
        result = prestarted.evaluate(relu_task, text)
        assert result.status == expected, result.message
        spare = prestarted.idle_worker_pids()
        assert len(spare) == 1
        assert worker_processes(idle_groups=spare) == []  # no process that ran candidate code is left
    assert prestarted.launcher.stats["spares_used"] == len(cases) - 1
    assert result.durations["startup"] < 1.0  # the spare had torch and Triton imported already
    prestarted.close()
    assert wait_until_gone() == []


@needs_namespaces
def test_state_left_by_one_candidate_never_reaches_the_next(prestarted, relu_task):
    marker = candidate(pre="__import__('torch')._kernelgym_marker = 1")
    reader = candidate(pre="x = x + 1 if hasattr(__import__('torch'), '_kernelgym_marker') else x")
    assert prestarted.evaluate(relu_task, marker).status == "ok"
    result = prestarted.evaluate(relu_task, reader)  # ran in the spare started before the marker was set
    assert result.status == "ok", result.message
    assert prestarted.launcher.stats["spares_used"] == 1


@needs_namespaces
def test_a_spare_that_died_while_waiting_is_replaced(prestarted, relu_task):
    assert prestarted.evaluate(relu_task, GOOD).status == "ok"
    (spare,) = prestarted.idle_worker_pids()
    os.killpg(spare, signal.SIGKILL)
    time.sleep(0.5)
    result = prestarted.evaluate(relu_task, GOOD)
    assert result.status == "ok", result.message
    assert prestarted.launcher.stats["spares_dead"] == 1


@needs_namespaces
def test_a_spare_exits_when_the_process_that_started_it_dies(tmp_path):
    script = textwrap.dedent(f'''
        import os, sys
        sys.path.insert(0, {str(DATA.parent.parent)!r})
        from kernelgym.judge.runner import Judge
        from kernelgym.tasks import load_tasks
        from kernelgym.testing.candidates import GOOD
        task = load_tasks({str(DATA / "tasks")!r}).get("L1/1_scaled_relu")
        judge = Judge(device="cpu", cache_dir={str(tmp_path)!r}, prestart_workers=True)
        print(judge.evaluate(task, GOOD).status, len(judge.idle_worker_pids()), flush=True)
        os._exit(0)  # no close(): the spare must notice on its own
    ''')
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    out, _ = proc.communicate(timeout=300)
    assert out.split() == ["ok", "1"]
    assert wait_until_gone(owner=proc.pid, timeout=30) == []


@needs_namespaces
def test_env_close_stops_the_spare(relu_task):
    import gymnasium as gym

    import kernelgym  # noqa: F401

    env = gym.make("KernelGym-L1-v0", tasks=str(DATA / "tasks"), device="cpu")
    env.reset(seed=0, options={"task_id": relu_task.id})
    _, reward, *_ = env.step(GOOD)
    assert reward > 0 and len(env.unwrapped.evaluator.idle_worker_pids()) == 1
    env.close()
    assert wait_until_gone() == []


def test_no_spare_is_kept_without_the_sandbox(tmp_path, relu_task):
    from kernelgym.judge.runner import Judge

    judge = Judge(device="cpu", cache_dir=tmp_path, prestart_workers=True, sandbox="unsafe")
    assert judge.evaluate(relu_task, GOOD).status == "ok"
    assert judge.idle_worker_pids() == [] and worker_processes() == []


@pytest.mark.slow
@needs_namespaces
def test_thread_pools_and_collection_close_their_spares(tmp_path, relu_task, test_tasks):
    from kernelgym.data.collect import collect
    from kernelgym.evaluators.judge_pool import JudgePool

    with JudgePool(device="cpu", cache_dir=tmp_path, max_workers=2) as pool:
        results = pool.evaluate_many([(relu_task, GOOD), (relu_task, candidate(expr="x"))] * 2)
        assert [r.status for r in results] == ["ok", "incorrect"] * 2
        assert sum(j.launcher.stats["spares_used"] for j in pool._judges.all()) >= 1
        assert len({id(j.launcher.spares) for j in pool._judges.all()}) == 1  # one set of spares for the pool
    assert worker_processes() == []
    stats = collect(lambda obs: GOOD, test_tasks.select(ids=[relu_task.id]), tmp_path / "ep.jsonl", samples=2,
                    device="cpu", jobs=2, cache_dir=tmp_path, progress=False, parquet=False)
    assert stats.planned == 2
    assert worker_processes() == []


@needs_namespaces
def test_several_spares_are_kept_and_used_oldest_first(tmp_path, relu_task):
    from kernelgym.judge.runner import Judge

    judge = Judge(device="cpu", cache_dir=tmp_path, static_checks=False, prestart_workers=2)
    try:
        assert judge.evaluate(relu_task, GOOD).status == "ok"
        first = judge.idle_worker_pids()
        assert len(first) == 2 and worker_processes(idle_groups=first) == []
        assert judge.evaluate(relu_task, candidate(expr="x")).status == "incorrect"
        second = judge.idle_worker_pids()
        assert len(second) == 2 and second[0] == first[1]  # the older spare ran; the younger waits on
        assert judge.launcher.stats == {"started": 4, "spares_used": 1, "spares_dead": 0}
    finally:
        judge.close()
    assert wait_until_gone() == []


@pytest.mark.parametrize("bad", [-1, 1.5, "2"])
def test_a_spare_count_that_is_not_a_count_is_refused(bad):
    from kernelgym.judge.launch import WorkerLauncher

    with pytest.raises(ValueError, match="spare workers"):
        WorkerLauncher(lambda scratch: {}, "unsafe", bad)


@needs_namespaces
def test_a_spare_outlives_the_thread_that_started_it(prestarted, relu_task):
    """The sandbox dies with the thread that started it (PR_SET_PDEATHSIG): spares are started from the process's
    own spawning thread, so a spare started during an evaluation on a short-lived thread is alive for the next."""
    import threading

    first = []
    thread = threading.Thread(target=lambda: first.append(prestarted.evaluate(relu_task, GOOD)))
    thread.start()
    thread.join()
    assert first[0].status == "ok", first[0].message
    time.sleep(1.0)  # the starting thread is gone; a spare tied to it would be dead by now
    result = prestarted.evaluate(relu_task, GOOD)
    assert result.status == "ok", result.message
    assert prestarted.launcher.stats["spares_dead"] == 0 and prestarted.launcher.stats["spares_used"] == 1


def test_workers_can_be_started_in_a_forked_child():
    """A process forked after the runner started workers (a data-loader, a multiprocessing pool) starts its own:
    the parent's spawning thread does not exist in the child, so the child must not wait on it."""
    from kernelgym.judge.launch import spawn

    assert spawn([sys.executable, "-c", "pass"]).wait(timeout=60) == 0  # the parent's spawning thread is running
    pid = os.fork()
    if pid == 0:  # the child: exit with the started process's status, or 99 on any error
        code = 99
        try:
            code = spawn([sys.executable, "-c", "pass"]).wait(timeout=60)
        finally:
            os._exit(code)
    deadline = time.monotonic() + 60
    while (done := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.1)
    if done[0] == 0:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    assert done[0] == pid and os.waitstatus_to_exitcode(done[1]) == 0


@needs_namespaces
def test_judges_of_a_pool_share_their_spares_oldest_first(tmp_path, relu_task):
    """A pool's judges take from one set of spares: a judge whose candidates come fast takes a spare that another
    judge's evaluation started, and closing one judge gives up only the spares it asked for."""
    from kernelgym.judge.launch import SpareWorkers
    from kernelgym.judge.runner import Judge

    shared = SpareWorkers()
    a, b = (Judge(device="cpu", cache_dir=tmp_path, static_checks=False, prestart_workers=1, spare_workers=shared)
            for _ in range(2))
    try:
        assert a.evaluate(relu_task, GOOD).status == "ok"
        started_by_a = a.idle_worker_pids()
        assert len(started_by_a) == 1
        result = b.evaluate(relu_task, candidate(expr="x"))  # b asks for its spare too, and takes a's first
        assert result.status == "incorrect", result.message
        assert b.launcher.stats["spares_used"] == 1 and result.durations["startup"] < 1.0
        assert started_by_a[0] not in b.idle_worker_pids()  # it ran b's candidate
        spares = b.idle_worker_pids()
        assert len(spares) == 2 and a.idle_worker_pids() == spares
        assert worker_processes(idle_groups=spares) == []  # nothing that ran candidate code is left
        a.close()
        assert b.idle_worker_pids() == spares[:1]  # the older spare stays for b; the younger is killed
        assert b.evaluate(relu_task, GOOD).status == "ok"
        assert b.launcher.stats["spares_used"] == 2 and len(b.idle_worker_pids()) == 1
    finally:
        a.close()
        b.close()
    assert shared.pids() == [] and wait_until_gone() == []


@needs_namespaces
def test_judges_that_start_workers_differently_cannot_share_spares(tmp_path):
    from kernelgym.judge.launch import SpareWorkers
    from kernelgym.judge.runner import Judge

    shared = SpareWorkers()
    Judge(device="cpu", cache_dir=tmp_path / "a", prestart_workers=1, spare_workers=shared)
    with pytest.raises(ValueError, match="start them alike"):  # another cache folder, hidden from its workers
        Judge(device="cpu", cache_dir=tmp_path / "b", prestart_workers=1, spare_workers=shared)
    Judge(device="cpu", cache_dir=tmp_path / "a", prestart_workers=1, spare_workers=shared)  # alike: admitted
    assert shared.pids() == []  # no worker is started before a judge needs one


def test_spares_shared_by_threads_are_started_once_and_given_up_youngest_first():
    """:class:`SpareWorkers` under concurrent top-ups: as many spares as asked for, none started twice over; fewer
    asked for kills the youngest; a dead spare is thrown away, never handed out."""
    import threading
    from types import SimpleNamespace

    from kernelgym.judge.launch import SpareWorkers

    started, discarded = [], []
    lock = threading.Lock()

    def start():
        time.sleep(0.01)  # long enough for the threads' top-ups to overlap
        with lock:
            n = len(started)
            spare = SimpleNamespace(proc=SimpleNamespace(pid=1000 + n), alive=lambda: n != 1,
                                    discard=lambda: discarded.append(1000 + n))
            started.append(spare)
        return spare

    shared = SpareWorkers()
    shared.attach(3)
    threads = [threading.Thread(target=shared.top_up, args=(start,)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(started) == 3 and sorted(shared.pids()) == [1000, 1001, 1002] and discarded == []
    first, dead = shared.pop_oldest()
    assert first.proc.pid == 1000 and dead == 0 and 1000 not in shared.pids()
    spare, dead = shared.pop_oldest()  # 1001 died while waiting
    assert spare.proc.pid == 1002 and dead == 1 and discarded == [1001]
    shared.top_up(start)
    shared.top_up(start)
    assert shared.pids() == [1003, 1004, 1005]
    shared.detach(2)
    assert shared.pids() == [1003] and discarded == [1001, 1005, 1004]
