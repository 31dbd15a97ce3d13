"""A user's round 3: the findings round 2 left open (a Ray pool that cannot be pickled, the README's vector env
serving other tasks than ``KernelGym-L2-v0``, a failing sub-env losing the others' step) and more of their kind.
Each test fails on the code before its fix."""

from __future__ import annotations

import ast
import logging
import pickle
import re
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import kernelgym  # noqa: F401 - registers the ids
from conftest import GOOD, InstantEvaluator, local_ray
from kernelgym.envs import KernelEnv
from kernelgym.envs.vector import KernelVectorEnv

README = Path(__file__).resolve().parents[1] / "README.md"
TASK = "L1/15_relu"


class FailingEvaluator(InstantEvaluator):
    """An InstantEvaluator whose ``submit`` raises for a text holding ``"boom"`` (a broken evaluator, as a closed
    pool's would)."""

    def submit(self, task, text, *, backend="triton", profile="quick", torch_policy="partial"):
        if "boom" in text:
            raise ConnectionError("the evaluator lost its cluster")
        return super().submit(task, text, backend=backend, profile=profile, torch_policy=torch_policy)


# -- 2: the README's vector env serves KernelGym-L2-v0's tasks -------------------------------------------------
def test_the_readme_vector_env_serves_the_l2_ids_tasks():
    """README's ``KernelVectorEnv(16, pool, levels=[2])`` served the 7 extra-set ``X/`` tasks of level 2 beside
    the ``L2/`` ones, while the ``KernelGym-L2-v0`` on the next line serves ``L2/`` only."""
    line = next(l for l in README.read_text().splitlines() if "KernelVectorEnv(16" in l)
    call = ast.parse(line.split("=", 1)[1].split("#")[0].strip()).body[0].value
    kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
    venv = KernelVectorEnv(2, InstantEvaluator(), **kwargs)
    made = gym.make("KernelGym-L2-v0", evaluator=InstantEvaluator())
    try:
        ids = {t.id for t in venv.envs[0].tasks}
        assert ids == {t.id for t in made.unwrapped.tasks}
        assert ids and all(i.startswith("L2/") for i in ids)
    finally:
        venv.close()
        made.close()
    assert re.search(r"levels=\[2\]`? alone selects every task of level 2", README.read_text())


# -- 3: a failing sub-env keeps the others' work -------------------------------------------------------------
def _venv(**kwargs):
    return KernelVectorEnv(3, FailingEvaluator(), task_ids=[TASK], **kwargs)


def test_a_failing_sub_env_keeps_the_others_results_and_raises_with_them():
    """One sub-env's exception in ``step`` propagated alone: the other sub-envs had stepped (their turn taken,
    their history grown) but their observations, rewards and infos were lost."""
    from kernelgym.envs import VectorStepError

    venv = _venv()
    try:
        venv.reset(seed=0)
        with pytest.raises(VectorStepError) as caught:
            venv.step(["wrong", "boom", GOOD])
        err = caught.value
        assert set(err.errors) == {1} and isinstance(err.errors[1], ConnectionError)
        assert isinstance(err.__cause__, ConnectionError)
        obs, rewards, terms, truncs, infos = err.results
        per_env = infos["per_env"]
        assert per_env[0]["turn"] == 1 and per_env[0]["result"]["status"] == "incorrect"
        assert per_env[2]["result"]["status"] == "ok" and terms[2]
        assert per_env[1]["error"].startswith("ConnectionError: the evaluator lost")
        assert per_env[1]["judge_fault"] is True and per_env[1]["task_id"] == TASK
        assert rewards[1] == 0.0 and not terms[1] and truncs[1]
        assert obs["task_id"] == (TASK, TASK, TASK)
        # the vector env goes on: sub-env 1 (and the finished 2) are reset, sub-env 0 takes its second turn
        obs, rewards, terms, truncs, infos = venv.step(["wrong", "ignored", "ignored"])
        assert infos["per_env"][0]["turn"] == 2
        assert list(obs["turn"]) == [2, 0, 0] and not truncs.any()
    finally:
        venv.close()


def test_on_error_truncate_returns_the_step_and_logs(caplog):
    venv = _venv(on_error="truncate")
    try:
        venv.reset(seed=0)
        with caplog.at_level(logging.WARNING, logger="kernelgym.envs.vector"):
            obs, rewards, terms, truncs, infos = venv.step(["boom", "wrong", "boom"])
        assert list(truncs) == [True, False, True] and list(terms) == [False, False, False]
        assert infos["per_env"][1]["turn"] == 1 and "error" not in infos["per_env"][1]
        assert infos["per_env"][0]["error_type"] == "ConnectionError"
        assert "sub-env 0 failed" in caplog.text and "sub-env 2 failed" in caplog.text
    finally:
        venv.close()


def test_vector_env_bad_settings_and_step_before_reset():
    """``num_envs=2.5`` made 2 sub-envs, ``num_envs=None`` said "int() argument must be ...", ``max_parallel=0``
    was taken as the default and ``max_parallel=-1`` failed in ThreadPoolExecutor."""
    for bad, exc in ((2.5, TypeError), (None, TypeError), ("3", TypeError), (True, TypeError), (0, ValueError)):
        with pytest.raises(exc, match="num_envs must be"):
            KernelVectorEnv(bad, InstantEvaluator(), task_ids=[TASK])
    for bad, exc in ((0, ValueError), (-1, ValueError), (1.5, TypeError)):
        with pytest.raises(exc, match="max_parallel must be"):
            KernelVectorEnv(2, InstantEvaluator(), max_parallel=bad, task_ids=[TASK])
    with pytest.raises(ValueError, match="on_error must be one of"):
        KernelVectorEnv(2, InstantEvaluator(), on_error="ignore", task_ids=[TASK])
    venv = KernelVectorEnv(np.int64(2), InstantEvaluator(), task_ids=[TASK])
    try:
        assert venv.num_envs == 2
        with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
            venv.step(["a", "b"])
    finally:
        venv.close()


# -- 1: a RayEvalPool pickles soundly --------------------------------------------------------------------------
def test_ray_pool_bad_settings_fail_before_any_actor_starts():
    """``num_gpus=0`` made a pool with no actor whose ``submit`` blocked forever (or ThreadPoolExecutor's
    "max_workers must be greater than 0")."""
    pytest.importorskip("ray")
    from kernelgym.evaluators.ray_pool import RayEvalPool

    for kwargs, exc in (({"num_gpus": 0}, ValueError), ({"concurrency_per_gpu": 0}, ValueError),
                        ({"max_in_flight": -1}, ValueError), ({"num_gpus": 1.5}, TypeError),
                        ({"gpus_per_actor": -1}, ValueError), ({"gpus_per_actor": "1"}, TypeError)):
        with pytest.raises(exc, match=next(iter(kwargs))):
            RayEvalPool(**kwargs)


@pytest.mark.slow
def test_a_ray_pool_and_an_env_on_it_pickle_and_a_copy_never_stops_the_actors(tmp_path):
    """``pickle.dumps(pool)`` failed ("Can't pickle local object '_prebuild_task.<locals>.prebuild'"), so a
    KernelEnv on a pool (its ``__getstate__`` says to pass one) could not be sent to a Ray task."""
    ray = pytest.importorskip("ray")
    from kernelgym.evaluators.ray_pool import RayEvalPool

    cluster = local_ray(num_cpus=1, num_gpus=0)
    next(cluster)
    pool = None
    try:
        pool = RayEvalPool(num_gpus=1, gpus_per_actor=0, concurrency_per_gpu=1, max_in_flight=3,
                           judge_kwargs={"cache_dir": str(tmp_path)})
        copy = pickle.loads(pickle.dumps(pool))
        assert [a._actor_id for a in copy.actors] == [a._actor_id for a in pool.actors]
        assert (copy.max_in_flight, copy.judge_kwargs, copy.dedupe) == (3, pool.judge_kwargs, True)
        assert copy._executor is not pool._executor and copy._slots is not pool._slots
        copy.close()
        copy.close(abort=True)  # closing a copy twice, even with abort, never touches the actors
        with pytest.raises(RuntimeError, match="closed"):
            copy.submit(None, "x")
        assert pool.actor_info()[0]["device"] == "cpu"  # the original's actor answers still

        env = KernelEnv(evaluator=pool, task_ids=[TASK])

        @ray.remote(num_cpus=1)
        def remote_reset(payload):
            env = pickle.loads(payload)
            _, info = env.reset(seed=0)
            answer = (info["task_id"], [a._actor_id.hex() for a in env.evaluator.actors],
                      env.evaluator.actor_info()[0]["device"])
            env.evaluator.close()  # the worker's copy: must leave the actors running
            return answer

        task_id, actor_ids, device = ray.get(remote_reset.remote(pickle.dumps(env)), timeout=120)
        assert task_id == TASK and actor_ids == [a._actor_id.hex() for a in pool.actors] and device == "cpu"
        assert pool.actor_info()[0]["device"] == "cpu"
        pool.close()
        pool.close()  # twice is harmless
        with pytest.raises(RuntimeError, match="closed RayEvalPool cannot be pickled"):
            pickle.dumps(pool)
        with pytest.raises(RuntimeError, match="closed"):
            pool.evaluate_many([])
    finally:
        if pool is not None:
            pool.close()
        next(cluster, None)
