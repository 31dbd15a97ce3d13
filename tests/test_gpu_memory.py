"""The driver's account of a GPU's memory by process (kernelgym.judge.gpu_memory), on real process trees."""
import subprocess
import sys

from kernelgym.judge import gpu_memory

GIB = 1 << 30
UUID = "GPU-5d3a1c2e-0000-1111-2222-333344445555"


def test_the_compute_apps_of_one_device_are_read_and_the_rest_skipped():
    text = (f"101, 14560, {UUID}\n"
            "102, 2000, GPU-ffffffff-0000-1111-2222-333344445555\n"
            f"103, [N/A], {UUID}\n"
            f"101, 40, {UUID}\n"
            "pid, used_memory [MiB], gpu_uuid\n")
    assert gpu_memory.parse_compute_apps(text, UUID.removeprefix("GPU-").upper()) == {101: 14600 << 20}
    assert gpu_memory.parse_compute_apps(text, f"UUID('{UUID[4:]}')") == {101: 14600 << 20}
    assert gpu_memory.parse_compute_apps(text, "no uuid here") == {}


def test_a_workers_children_count_as_the_candidates_whatever_their_group():
    """A child that left its parent's process group (setsid) is still in the worker's tree: its memory is the
    candidate's, never someone else's."""
    code = ("import os, subprocess, sys, time\n"
            "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'], start_new_session=True)\n"
            "time.sleep(60)\n")
    worker = subprocess.Popen([sys.executable, "-c", code])
    try:
        for _ in range(100):
            children = [pid for pid in gpu_memory.descendants(worker.pid) if pid != worker.pid]
            if children:
                break
            subprocess.run(["sleep", "0.05"], check=True)
        assert children
        held = {worker.pid: GIB, children[0]: 20 * GIB, 1: 3 * GIB}
        got = gpu_memory.account("cuda:0", worker.pid, 1, held=held, free_total=(2 * GIB, 80 * GIB))
        assert (got.worker, got.runner, got.others) == (21 * GIB, 3 * GIB, 0)
        assert not got.others_beyond(0.8)  # 3 GiB is within the 16 GiB a budget of 80% leaves outside
        bigger = gpu_memory.account("cuda:0", worker.pid, 1, held={**held, 999_999_999: 14 * GIB},
                                    free_total=(2 * GIB, 80 * GIB))
        assert bigger.others == 14 * GIB and bigger.others_beyond(0.8)  # 17 GiB outside the candidate's tree
        assert not bigger.others_beyond(0.8, runner_own=2 * GIB)  # the runner's first 2 GiB were the evaluation's
    finally:
        subprocess.run(["pkill", "-KILL", "-P", str(worker.pid)], check=False)
        worker.kill()
        worker.wait()


def test_no_account_where_the_driver_lists_nothing_of_the_worker():
    """A driver that cannot see into the worker's namespace lists none of it: everything used would then look like
    someone else's, so there is no account at all."""
    assert gpu_memory.account("cuda:0", 2 ** 22 + 17, 1, held={1: 40 * GIB}, free_total=(GIB, 80 * GIB)) is None
