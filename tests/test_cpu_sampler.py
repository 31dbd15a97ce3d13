"""kernelgym/evaluators/cpu_sampler.py: CPU is charged to the function that used it, not to threads that wait, and
the interpreter lock's wait is measured (the profile ``benchmarks/throughput.py --cpu-profile`` prints)."""

from __future__ import annotations

import threading
import time

import pytest

from kernelgym.evaluators.cpu_sampler import CpuSampler, frame_key, group_name


def spin_in_python(stop: threading.Event) -> None:
    n = 0
    while not stop.is_set():
        n += 1


def wait_on_lock(stop: threading.Event) -> None:
    stop.wait()


def profile_of(targets, seconds: float = 0.6) -> dict:
    sampler = CpuSampler(interval_s=0.005)
    sampler.start()
    stop = threading.Event()
    threads = [threading.Thread(target=t, args=(stop,), name=f"{t.__name__}-{i}") for i, t in enumerate(targets)]
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    return sampler.stop()


def charged(rows: list, name: str) -> float:
    return sum(v for k, v in rows if k.endswith(f":{name}"))


def test_cpu_goes_to_the_spinning_function_and_none_to_the_waiting_one():
    prof = profile_of([spin_in_python, wait_on_lock])
    assert charged(prof["inclusive"], "spin_in_python") > 0.3, prof
    assert charged(prof["inclusive"], "wait_on_lock") < 0.05, prof
    assert prof["process_cpu_s"] >= prof["sampled_cpu_s"] > 0.3, prof
    assert prof["samples"] > 10
    # both threads were born after start: the kernel's account of them, whole, by name (the numbers made N)
    assert prof["thread_cpu_s"].get("spin_in_python-N", 0) > 0.3, prof["thread_cpu_s"]


def test_the_interpreter_lock_wait_grows_with_a_thread_that_never_releases_it():
    quiet = profile_of([wait_on_lock], seconds=0.3)
    busy = profile_of([spin_in_python], seconds=0.3)
    # a spinning Python thread keeps the lock for the switch interval (5 ms by default) at each wake-up
    assert quiet["gil_wait_ms"]["p50"] < 1.0 < busy["gil_wait_ms"]["p50"], (quiet["gil_wait_ms"], busy["gil_wait_ms"])


def test_names_group_and_keys_are_short():
    assert group_name("ThreadPoolExecutor-3_12") == "ThreadPoolExecutor-N_N"
    assert frame_key(test_names_group_and_keys_are_short.__code__).endswith(
        "test_cpu_sampler.py:test_names_group_and_keys_are_short")


def test_start_and_stop_out_of_order_are_refused():
    sampler = CpuSampler()
    with pytest.raises(RuntimeError):
        sampler.stop()
    sampler.start()
    with pytest.raises(RuntimeError):
        sampler.start()
    assert sampler.stop()["samples"] >= 0
    with pytest.raises(ValueError):
        CpuSampler(interval_s=0)
