"""A Ray pool's actor on a node without GPUs: its torch uses the node's CPUs, not the one thread Ray starts it with."""

from __future__ import annotations

import os

import pytest

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def cpu_cluster():
    ray.init(num_cpus=2, num_gpus=0, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    yield
    ray.shutdown()


def test_a_cpu_actor_runs_torch_on_every_cpu_of_its_node(cpu_cluster, tmp_path):
    from kernelgym.evaluators.ray_pool import RayEvalPool

    pool = RayEvalPool(concurrency_per_gpu=1, judge_kwargs={"cache_dir": str(tmp_path)})
    try:
        (info,) = pool.actor_info()
        assert info["device"] == "cpu" and info["torch_threads"] == len(os.sched_getaffinity(0)), info
    finally:
        pool.close()
