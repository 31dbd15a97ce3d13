"""The candidate's stage limits are spent on the candidate only: the judge's own work (the reference's outputs,
its float64 result, the comparisons) moves the deadlines on, however long other evaluations make it take."""

from __future__ import annotations

import dataclasses

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
    import threading

    from kernelgym.judge.numerics import settings_held

    done = threading.Event()
    with settings_held():  # as another evaluation's reference would hold it
        worker = threading.Thread(target=lambda: (judge.reference.exact_outputs(relu_task, 0, 1), done.set()))
        worker.start()
        finished = done.wait(timeout=30)
    worker.join()
    assert finished
