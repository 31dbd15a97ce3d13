"""Red team, round 38 (timing and the witness): the result channel taken over by its descriptor's number, and the
witness's window.

The end-to-end attack runs with the static guards off (the run-time defence must hold on its own), on the CPU, on
the scaled relu at 64 x 1024 (outputs four times a snapshot's sample, as round 36's tests)."""

from __future__ import annotations

import pytest

from kernelgym.testing.candidates import PARKED_FINALIZER, RELU_TRUE_SAMPLE, indent, kernel_forward, resized_relu_task
from conftest import SHORT, assert_rejected_for

ROWS, COLS = 64, 1024


#: each timed call returns garbage at once and points the result channel's descriptor *number* at a pipe of its own
#: (``os.dup2``: ``worker._RESULT_FD`` keeps its value, so the watch sees nothing); the worker writes the call's seal
#: into that pipe; the finalizer freed with the call's output (``del out``, still inside the block) reads the seal,
#: replaces its digests by those of the true output's bytes at the seal's key (and the worker's own sample likewise),
#: forwards it through the real channel and puts the descriptor back; ``PARKED_FINALIZER`` fills the snapshots after
#: the block, outside every clock
CHANNEL_TAKEN = kernel_forward(indent('''
if sys.getswitchinterval() < 1e-3:  # a timed call
    keep = x.clone()
    PENDING.append(keep)
    park(finish_block)
    k[(1,)](x, torch.empty_like(x), 1, BLOCK=256)
    y = torch.empty_like(x)
    take_channel()
    weakref.finalize(y, forge, keep, worker().snapshot_samples)
    return y
return launch(x)'''), imports="import gc\nimport json\nimport os\nimport struct\nimport sys\nimport weakref",
    extra=PARKED_FINALIZER + RELU_TRUE_SAMPLE + '''
T = sys.modules["kernelgym.judge.timing"]
FD = int(sys.argv[1])
SAVED = []


def take_channel():
    if not SAVED:
        r, w = os.pipe()
        SAVED.extend([os.dup(FD), r, w])
    os.dup2(SAVED[2], FD)


def forge(keep, samples):
    key, _ = samples[-1]
    forged = true_sample(keep, key)
    samples[-1] = (key, forged)
    os.dup2(SAVED[0], FD)  # the channel back, before anything else of the block is written
    data = os.read(SAVED[1], 1 << 16)
    out = b""
    while data:
        n = struct.unpack(">I", data[:4])[0]
        header, data = json.loads(data[4:4 + n]), data[4 + n:]
        if header.get("event") == "seal" and isinstance(header.get("seal"), dict):
            header["seal"]["samples"] = T.sample_digests(forged)
        raw = json.dumps(header).encode()
        out += struct.pack(">I", len(raw)) + raw
    os.write(FD, out)
''')


@pytest.fixture(scope="module")
def relu(tmp_path_factory):
    return resized_relu_task(tmp_path_factory.mktemp("tasks") / "relu", ROWS, COLS, on_cpu=True)


@pytest.mark.timeout(180)
def test_the_result_channel_taken_over_by_its_number_to_rewrite_the_seals_is_caught(runtime_judge, relu):
    result = runtime_judge.evaluate(relu, CHANNEL_TAKEN, profile=SHORT)
    assert_rejected_for(result, "result channel")
