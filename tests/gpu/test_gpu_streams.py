"""The runner's per-thread streams (kernelgym.judge.streams) on a real GPU. Skipped without CUDA."""

from __future__ import annotations

import threading
import time

import pytest
import torch

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")]

SLEEP_CYCLES = 2_000_000_000  # about a second at the H200's clock


def test_a_thread_waiting_for_its_own_work_does_not_wait_for_another_threads_queue():
    from kernelgym.judge import streams

    with streams.own("cuda:0"):  # allocated before the other thread queues anything (no allocation in the race)
        x = torch.ones(1 << 20, device="cuda:0")
    queued = threading.Event()

    def busy():
        with streams.own("cuda:0"):
            torch.cuda._sleep(SLEEP_CYCLES)
            queued.set()

    other = threading.Thread(target=busy)
    other.start()
    queued.wait()
    started = time.perf_counter()
    with streams.own("cuda:0"):
        x.mul_(2)
        streams.settle("cuda:0")
        waited = time.perf_counter() - started
        assert float(x.sum()) == 2.0 * (1 << 20)
    other.join()
    slept = time.perf_counter() - started
    assert waited < 0.5 * slept, (waited, slept)  # the other thread's sleep held its own exit, not this settle


def test_own_waits_for_its_stream_when_the_block_ends_and_default_waits_before_switching():
    from kernelgym.judge import streams

    with streams.own("cuda:0"):
        stream = torch.cuda.current_stream("cuda:0")
        assert stream != torch.cuda.default_stream("cuda:0")
        torch.cuda._sleep(SLEEP_CYCLES // 4)
        with streams.default("cuda:0"):
            assert stream.query(), "default() began before the thread's own stream was idle"
            assert torch.cuda.current_stream("cuda:0") == torch.cuda.default_stream("cuda:0")
        torch.cuda._sleep(SLEEP_CYCLES // 4)
    assert stream.query(), "own() ended with its stream still busy"
