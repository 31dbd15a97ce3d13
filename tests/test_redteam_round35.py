"""Red team, round 35 (timing path): data the worker keeps between a timed block and the runner's check of one of
its calls is the candidate's to rewrite, whatever the watch list says.

Each attack runs with the static guards off (the run-time defence must hold on its own), on the CPU test task.
"""

from __future__ import annotations

import pytest

from kernelgym.judge.profiles import get_profile
from kernelgym.testing.candidates import GOOD, fill_snapshots_after_the_block
from conftest import assert_rejected_for

SHORT = get_profile("quick").with_overrides(compile_timeout_s=30, cpu_correctness_timeout_s=30)

#: the timed calls return garbage at once; after the block (a finalizer run by the collector between the judge's
#: commands) the real work is written into the judge's snapshots, and the worker's own samples of them, kept in a
#: plain list of the worker's, are dropped: its check compared a snapshot with its sample only "where one was taken"
#: (no function of the judge's is replaced, the watch list stays whole)
SAMPLES_DROPPED = fill_snapshots_after_the_block(setup='''
def finish_block():
    if not PENDING:
        return
    worker = next(o for o in gc.get_objects() if type(o).__name__ == "Worker")
    snaps = worker.snapshots
    for i, x in enumerate(PENDING[-len(snaps):]):
        snaps[i][0].copy_(launch(x))
    PENDING.clear()
    worker.snapshot_samples.clear()
''')

#: the same, with each sample taken again from the filled snapshot at its own key (the key is kept beside it)
SAMPLES_RETAKEN = fill_snapshots_after_the_block(setup='''
def finish_block():
    if not PENDING:
        return
    worker = next(o for o in gc.get_objects() if type(o).__name__ == "Worker")
    timing = sys.modules["kernelgym.judge.timing"]
    snaps = worker.snapshots
    for i, x in enumerate(PENDING[-len(snaps):]):
        snaps[i][0].copy_(launch(x))
    PENDING.clear()
    samples = worker.snapshot_samples
    for i, (key, _) in enumerate(list(samples)):
        samples[i] = (key, timing.snapshot_sample(snaps[i], key))
''')


@pytest.mark.timeout(120)
def test_an_honest_kernel_is_still_ok(runtime_judge, relu_task):
    result = runtime_judge.evaluate(relu_task, GOOD, profile=SHORT)
    assert result.status == "ok", result.message


@pytest.mark.timeout(120)
@pytest.mark.parametrize("text", [SAMPLES_DROPPED, SAMPLES_RETAKEN], ids=["dropped", "retaken"])
def test_snapshots_filled_after_the_block_with_the_workers_samples_rewritten_are_caught(runtime_judge, relu_task,
                                                                                          text):
    """Before the mend: ``ok`` at 2.5 ms against the honest kernel's 8.6 ms (CPU interpreter), no flag: the work
    was done between the judge's commands and the worker's samples of its snapshots said nothing. Now every call's
    seal (its sample's digest, layouts and written inputs) leaves the worker with the block's times, and the runner
    checks the outputs it is sent against it."""
    result = runtime_judge.evaluate(relu_task, text, profile=SHORT)
    assert_rejected_for(result, "was changed after the call")


#: the worker's seals dropped from its frames (code past the watch list): the runner needs one per timed call
SEALS_DROPPED = fill_snapshots_after_the_block(setup='''
M = sys.modules["kernelgym.judge.worker"]
M._WATCHED.clear()
M._seals = lambda *args: None
''')


@pytest.mark.timeout(120)
def test_a_block_without_its_seals_is_rejected(runtime_judge, relu_task):
    result = runtime_judge.evaluate(relu_task, SEALS_DROPPED, profile=SHORT)
    assert_rejected_for(result, "seals of the timed calls' outputs")
