"""A Ray pool's actor on a node without GPUs: its torch uses the node's CPUs, not the one thread Ray starts it with."""

from __future__ import annotations

import os

import pytest

ray = pytest.importorskip("ray")

from conftest import local_ray  # noqa: E402


@pytest.fixture(scope="module")
def cpu_cluster():
    yield from local_ray(num_gpus=0)


def test_a_cpu_actor_runs_torch_on_every_cpu_of_its_node(cpu_cluster, tmp_path):
    from kernelgym.evaluators.ray_pool import RayEvalPool

    pool = RayEvalPool(concurrency_per_gpu=1, judge_kwargs={"cache_dir": str(tmp_path)})
    try:
        (info,) = pool.actor_info()
        assert info["device"] == "cpu" and info["torch_threads"] == len(os.sched_getaffinity(0)), info
    finally:
        pool.close()
