"""The judge's own work (the reference's outputs, its float64 result, the comparisons) spends none of the candidate's
stage limits, however long other evaluations make it take, and holds nothing the others need while it runs long: not
the GPU, not the reference's numerics; the float64 result waits for GPU memory rather than run on the host for
minutes."""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
import types

import torch

from kernelgym.judge.profiles import get_profile
from kernelgym.testing.candidates import GOOD

#: seconds the slow reference sleeps in each forward, and a correctness limit that a few of them exceed
REFERENCE_SLEEP_S, LIMIT_S = 0.6, 2.0


def slow_reference(task):
    """The task with a reference that sleeps in every forward, as one waiting for the judge's locks would."""
    source = task.source.replace("import torch\n", "import time\nimport torch\n", 1).replace(
        "    def forward(self, x):\n", f"    def forward(self, x):\n        time.sleep({REFERENCE_SLEEP_S})\n", 1)
    assert "time.sleep" in source
    return dataclasses.replace(task, source=source)


def test_a_slow_reference_does_not_spend_the_candidates_correctness_limit(judge, relu_task):
    profile = get_profile("quick").with_overrides(cpu_correctness_timeout_s=LIMIT_S, startup_timeout_s=60)
    result = judge.evaluate(slow_reference(relu_task), GOOD, profile=profile)
    assert result.status == "ok", result.message + result.log_tail
    assert result.durations["reference"] > LIMIT_S  # the judge's work alone was longer than the stage's limit
    assert result.durations["correctness"] > LIMIT_S


def test_a_float64_result_on_the_host_does_not_wait_for_the_references_numerics(judge, relu_task):
    """The pinned numerics are CUDA's and cuDNN's: a float64 result computed on the host neither needs nor holds
    their lock, so a long one (L1/15's took minutes) keeps no other evaluation's reference waiting."""
    from kernelgym.judge.numerics import settings_held

    done = threading.Event()
    with settings_held():  # as another evaluation's reference would hold it
        worker = threading.Thread(target=lambda: (judge.reference.exact_outputs(relu_task, 0, 1), done.set()))
        worker.start()
        finished = done.wait(timeout=30)
    worker.join()
    assert finished


def make_session(task, lock, tmp_path, budget=None, memory_need=0, exact_need=0):
    """A real :class:`Session` over a pipe no worker writes to: enough for its GPU holds and memory reservations."""
    import os

    from kernelgym.judge.admission import GpuAdmission, NoBudget
    from kernelgym.judge.reference import ReferenceSide
    from kernelgym.judge.result import EvalResult
    from kernelgym.judge.session import Session, Settings

    read_fd, _ = os.pipe()
    reference = ReferenceSide("cpu", tmp_path, "cpu", torch.__version__)
    return Session(types.SimpleNamespace(read_fd=read_fd), reference,
                   GpuAdmission(lock, budget if budget is not None else NoBudget()),
                   Settings(on_cpu=True, memory_limit_bytes=1 << 30, min_kernel_coverage=0.0),
                   EvalResult(task_id=task.id), get_profile("quick"), task, 0, memory_need, exact_need=exact_need)


def test_the_judges_host_work_gives_a_steps_gpu_hold_back(relu_task, tmp_path):
    """A float64 result computed on the host inside a trial's shared hold kept every other evaluation's timer
    waiting for its 154 s (H200, c27665c): ``off_gpu`` lets a timer in, and takes the hold again after, its wait
    moving the deadlines on; inside a timing slice's exclusive hold, it lets the others' steps in."""
    from kernelgym.judge.admission import SharedExclusiveLock

    lock = SharedExclusiveLock()
    session = make_session(relu_task, lock, tmp_path)
    timed = threading.Event()

    def timer():
        with lock.exclusive():
            timed.set()
            time.sleep(0.5)

    with session.gpu(label="trial"):
        other = threading.Thread(target=timer)
        other.start()
        assert not timed.wait(0.5)  # a shared hold keeps the timer out
        deadline = session.deadline
        with session.off_gpu():
            assert timed.wait(10)  # given back: the timer runs
        assert lock._sharers == 1 and not lock._writer  # held again, once the timer was done
        assert session.deadline - deadline >= 0.3  # the wait to take it again is not the candidate's
    other.join()
    with session.off_gpu():  # outside a hold: the block just runs
        assert lock._sharers == 0

    stepped = threading.Event()

    def step():
        with lock.shared():
            stepped.set()

    with session.gpu(alone=True):  # a timing slice's exclusive hold (a compared call's check runs in it)
        other = threading.Thread(target=step)
        other.start()
        assert not stepped.wait(0.3)
        with session.off_gpu():
            assert stepped.wait(10) and not session._holding_alone
        assert lock._writer and session._holding_alone  # alone again
    other.join()


def test_a_float64_result_computed_on_the_host_runs_off_the_callers_gpu_hold(relu_task, tmp_path):
    """Where the float64 model does not fit the GPU it runs on the host: every forward of it there, the plain one
    and the wide trial's moved ones, inside ``off_device``; the first attempt (on the judge's device) inside
    none."""
    from kernelgym.judge.reference import ReferenceSide

    side = ReferenceSide("cpu", tmp_path, "cpu", torch.__version__)
    side.on_cpu = False  # as on a GPU, whose memory the model below finds full
    source = relu_task.source.replace("    def forward(self, x):\n", (
        "    def forward(self, x):\n"
        "        if x.dtype == torch.float64 and not OFF[0]:\n"
        "            raise torch.OutOfMemoryError('the GPU is full')\n"), 1)
    source = source.replace("B = 4096", "B = 8").replace("D = 65536", "D = 300")  # the side runs full shapes
    task = dataclasses.replace(relu_task, source=source + "\nOFF = [False]\n")
    module, _ = side.model(task, 0)
    calls = []

    @contextlib.contextmanager
    def off_device():
        module.OFF[0] = True
        calls.append("off")
        try:
            yield
        finally:
            module.OFF[0] = False

    exacts = side.exact_outputs(task, 0, 1, off_device=off_device)
    assert exacts is not None and exacts[0].dtype == torch.float64 and calls == ["off"]
    moved = []
    assert side.perturbed_outputs(task, 0, 1, 0, 1e-3, 2, lambda i, outs: moved.append(module.OFF[0]),
                                  off_device=off_device)
    assert moved == [False] * 4 and calls == ["off"] * 5  # each moved forward inside, each comparison outside


def test_the_float64_results_wait_for_gpu_memory_off_the_gpu_hold_for_a_bounded_time(relu_task, tmp_path,
                                                                                    monkeypatch):
    """``exact_room``: the float64 reference's memory is reserved beside the evaluation's own, once per comparison,
    waiting at most ``EXACT_MEMORY_WAIT_S`` with the step's shared hold given back; never where it could not fit."""
    from kernelgym.judge import session as session_module
    from kernelgym.judge.admission import MemoryBudget, SharedExclusiveLock
    from kernelgym.judge.session import ExactRoom

    monkeypatch.setattr(session_module, "EXACT_MEMORY_WAIT_S", 0.5)
    lock, budget = SharedExclusiveLock(), MemoryBudget(10)
    with budget.reserve(4):  # the evaluation's own reservation
        session = make_session(relu_task, lock, tmp_path, budget, memory_need=4, exact_need=5)
        with session.gpu(label="trial"), ExactRoom() as room:
            assert session.exact_room(room) and budget.reserved == 9
            assert session.exact_room(room) and budget.reserved == 9  # once per comparison
        assert budget.reserved == 4  # released with the comparison

        with budget.reserve(3):  # another evaluation's: no room for 5 beside the 4 and the 3
            timed = threading.Event()

            def timer():
                with lock.exclusive():
                    timed.set()

            with session.gpu(label="trial"), ExactRoom() as room:
                other = threading.Thread(target=timer)
                other.start()
                started = time.monotonic()
                assert not session.exact_room(room)
                assert time.monotonic() - started >= 0.5 and timed.is_set()  # waited, with the GPU given back
                assert budget.reserved == 7 and lock._sharers == 1
            other.join()
        assert "exact_memory_wait" in session.result.durations

        too_large = make_session(relu_task, lock, tmp_path, budget, memory_need=4, exact_need=7)
        with ExactRoom() as room:
            started = time.monotonic()
            assert not too_large.exact_room(room) and time.monotonic() - started < 0.2  # never beside its own


def test_the_float64_results_take_free_memory_without_waiting_before_their_first_run(relu_task, tmp_path):
    """Before the float64 reference first runs on the GPU, ``exact_room(room, wait_s=0)`` reserves its memory where
    the budget has room for it now (so it never runs outside every reservation there), and otherwise returns at
    once, holding nothing and keeping the step's GPU hold."""
    from kernelgym.judge.admission import MemoryBudget, SharedExclusiveLock
    from kernelgym.judge.session import ExactRoom

    lock, budget = SharedExclusiveLock(), MemoryBudget(10)
    with budget.reserve(4):  # the evaluation's own reservation
        session = make_session(relu_task, lock, tmp_path, budget, memory_need=4, exact_need=5)
        with session.gpu(label="trial"), ExactRoom() as room:
            assert session.exact_room(room, wait_s=0.0) and budget.reserved == 9
        assert budget.reserved == 4
        with budget.reserve(3), session.gpu(label="trial"), ExactRoom() as room:  # 4 + 3 + 5 > 10
            started = time.monotonic()
            assert not session.exact_room(room, wait_s=0.0) and not room.reserved
            assert time.monotonic() - started < 0.2 and budget.reserved == 7 and lock._sharers == 1
            assert "exact_memory_wait" not in session.result.durations


def test_a_float64_result_that_ran_out_of_gpu_memory_runs_there_again_once_the_memory_is_reserved(relu_task,
                                                                                                   tmp_path):
    """Out of GPU memory, the float64 model is tried on the GPU once more where ``make_room`` reserved the memory
    (its forward then outside ``off_device``: not on the host), and on the host only where it did not."""
    from kernelgym.judge.reference import ReferenceSide

    side = ReferenceSide("cpu", tmp_path, "cpu", torch.__version__)
    side.on_cpu = False  # as on a GPU, whose memory the model below finds full until room is made
    source = relu_task.source.replace("    def forward(self, x):\n", (
        "    def forward(self, x):\n"
        "        if x.dtype == torch.float64 and not (ROOM[0] or OFF[0]):\n"
        "            raise torch.OutOfMemoryError('the GPU is full')\n"
        "        WHERE.append('off' if OFF[0] else 'device')\n"), 1)
    source = source.replace("B = 4096", "B = 8").replace("D = 65536", "D = 300")
    task = dataclasses.replace(relu_task, source=source + "\nOFF, ROOM, WHERE = [False], [False], []\n")
    module, _ = side.model(task, 0)

    @contextlib.contextmanager
    def off_device():
        module.OFF[0] = True
        try:
            yield
        finally:
            module.OFF[0] = False

    def make_room():
        module.ROOM[0] = True
        return True

    assert side.exact_outputs(task, 0, 1, off_device=off_device, make_room=make_room) is not None
    assert module.WHERE == ["device"]  # the second attempt, on the device
    module.ROOM[0], module.WHERE[:] = False, []
    assert side.exact_outputs(task, 0, 1, off_device=off_device, make_room=lambda: False) is not None
    assert module.WHERE == ["off"]  # no room: the host
