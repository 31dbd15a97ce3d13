"""kernelgym.judge.frames: every frame the runner reads holds only what the worker's own code sends."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kernelgym.judge.frames import MAX_INT, WORKER_FLAGS, check_frame
from kernelgym.judge.protocol import ProtocolError

JUDGE = Path(__file__).resolve().parents[1] / "kernelgym" / "judge"

#: frames as the worker's own code makes them (worker.py, profile.py)
GOOD_FRAMES = [
    {"event": "ready"},
    {"event": "outputs", "descs": [{"kind": "tensor", "dtype": "float32", "shape": [16, 250]},
                                   {"kind": "tensor", "dtype": "float32", "shape": [16, 250], "strides": [1, 16],
                                    "contiguous": False, "lazy": False, "device": "cpu"},
                                   {"kind": "scalar", "value": 1.5}, {"kind": "subclass", "type": "Mine"},
                                   {"kind": "other", "type": "list"}],
     "mutated_inputs": [0], "integrity_flags": [["monkeypatch", "the candidate replaced torch.equal"]],
     "own_launches": 3},
    {"event": "timing", "times_ms": [0.5, 1, 0.25], "integrity_flags": [], "own_launches": [1, 1, 1]},
    {"event": "spans", "spans_ms": [0.1, None], "integrity_flags": None},
    {"event": "profile", "report": {"kernel_us_total": 10.0, "kernel_us_candidate": 9.0, "coverage": 0.9,
                                    "top_kernels": [{"name": "k", "us": 9.0, "share": 0.9, "own": True}],
                                    "launched": ["k"], "foreign_kernels": [{"name": "f", "us": 1.0}],
                                    "aten_compute_ops": [], "candidate_kernels": ["k"],
                                    "interpreter_launches": {"k": 2}, "host_copies": 0}},
    {"event": "profile", "report": {"coverage": None, "candidate_kernels": [], "interpreter_launches": {}}},
    {"event": "error", "status": "runtime_error", "where": "trial", "message": "boom", "traceback": "..."},
]


@pytest.mark.parametrize("frame", GOOD_FRAMES, ids=lambda f: f["event"])
def test_the_workers_own_frames_pass(frame):
    check_frame(frame)


@pytest.mark.parametrize("frame", [
    {"event": "outputs", "integrity_flags": [["judge_error", "forged"]]},
    {"event": "timing", "integrity_flags": [["monkeypatch", "x"], ["aborted", "forged"]]},
    {"event": "outputs", "integrity_flags": [["a_name_of_its_own", "x"]]},
    {"event": "outputs", "integrity_flags": 5},
    {"event": "outputs", "integrity_flags": [["monkeypatch"]]},
    {"event": "outputs", "integrity_flags": [["monkeypatch", 5]]},
    {"event": "outputs", "descs": 5},
    {"event": "outputs", "descs": [[1]]},
    {"event": "outputs", "descs": [{"kind": "tensor", "dtype": "float32", "shape": 5}]},
    {"event": "outputs", "descs": [{"kind": "tensor", "dtype": "float32", "shape": [-1]}]},
    {"event": "outputs", "descs": [{"kind": "tensor", "dtype": 5, "shape": [1]}]},
    {"event": "outputs", "descs": [{"kind": "tensor", "dtype": "float32", "shape": [1, 2], "strides": [1]}]},
    {"event": "outputs", "descs": [{"kind": "tensor", "dtype": "float32", "shape": [2], "strides": [-1]}]},
    {"event": "outputs", "descs": [{"kind": "tensor", "dtype": "float32", "shape": [2], "strides": "1"}]},
    {"event": "outputs", "descs": [{"kind": "tensor", "dtype": "float32", "shape": [2], "contiguous": 1}]},
    {"event": "outputs", "descs": [{"kind": "tensor", "dtype": "float32", "shape": [2], "lazy": []}]},
    {"event": "outputs", "descs": [{"kind": "tensor", "dtype": "float32", "shape": [2], "device": 0}]},
    {"event": "outputs", "descs": [{"kind": 5}]},
    {"event": "outputs", "descs": [{"kind": "scalar", "value": "1"}]},
    {"event": "outputs", "descs": [{"kind": "scalar"}]},  # a class named "scalar" once made this
    {"event": "outputs", "descs": [{"kind": "list"}]},
    {"event": "outputs", "descs": [{"kind": "other"}]},
    {"event": "outputs", "mutated_inputs": "0"},
    {"event": "timing", "times_ms": [10 ** 400]},
    {"event": "spans", "spans_ms": [None, {"deep": [-(MAX_INT + 1)]}]},
    {"event": "profile", "report": [1]},
    {"event": "profile", "report": {"interpreter_launches": [1]}},
    {"event": "profile", "report": {"interpreter_launches": {"k": "x"}}},
    {"event": "profile", "report": {"candidate_kernels": "k"}},
    {"event": "profile", "report": {"foreign_kernels": [{"name": 5}]}},
    {"event": "profile", "report": {"foreign_kernels": [[1]]}},
    {"event": "profile", "report": {"foreign_kernels": [{}]}},
    {"event": "profile", "report": {"coverage": float("nan")}},
    {"event": "profile", "report": {"launched": True}},
    {"event": "profile", "report": {"host_copies": -1}},
    {"event": "profile", "report": {"host_copies": True}},
    {"event": 5},
    {},
])
def test_anything_else_is_a_malformed_frame(frame):
    with pytest.raises(ProtocolError):
        check_frame(frame)


def test_the_flags_the_worker_raises_are_the_ones_the_runner_accepts():
    """Every flag name the worker's own code puts in a frame is in WORKER_FLAGS (else an honest frame would be
    refused), and none of them is a flag the judge gives its own faults."""
    from kernelgym.judge.result import JUDGE_FAULT_FLAGS

    raised = set()
    for name in ("worker.py", "timing.py"):
        raised |= set(re.findall(r'(?:append\(|return )\["([a-z_]+)", ', (JUDGE / name).read_text()))
    assert raised and raised <= WORKER_FLAGS, raised - WORKER_FLAGS
    assert not WORKER_FLAGS & set(JUDGE_FAULT_FLAGS)


def number_task(directory: Path):
    """The scaled-relu test task with its output summed into a Python float, written under ``directory``."""
    from kernelgym.tasks import load_tasks
    from kernelgym.testing.candidates import TEST_TASKS

    text = (TEST_TASKS / "level1" / "1_scaled_relu.py").read_text()
    assert "        return torch.relu(x) * 2 + 1" in text
    text = text.replace("        return torch.relu(x) * 2 + 1", "        return float((torch.relu(x) * 2 + 1).sum().item())")
    (directory / "level1").mkdir(parents=True)
    (directory / "level1" / "1_relu_sum.py").write_text(text)
    return load_tasks(directory).get("L1/1_relu_sum")


@pytest.mark.timeout(300)
def test_an_output_of_a_class_named_scalar_is_not_a_number(tmp_path):
    """The worker describes an output that is neither a tensor nor a number by its type's name under ``type``, never
    as its kind: a class named ``scalar`` once passed for a number without a value, and the comparison raised in
    the runner (a judge fault). Now it is an output of the wrong kind, the candidate's verdict."""
    from kernelgym.judge.runner import Judge
    from kernelgym.testing.candidates import indent, kernel_forward

    task = number_task(tmp_path / "tasks")
    judge = Judge(device="cpu", cache_dir=tmp_path / "cache")
    try:
        honest = judge.evaluate(task, kernel_forward(indent("return float(launch(x).sum().item())")))
        assert honest.status == "ok", honest.message
        named = judge.evaluate(task, kernel_forward(indent("launch(x)\nreturn scalar()"),
                                                    extra="class scalar:\n    pass\n"))
        assert named.status == "incorrect" and not named.judge_fault, (named.status, named.message)
        assert "expected a scalar, got an object of type 'scalar'" in named.message, named.message
    finally:
        judge.close()
