"""What the GPU memory budget reserves per evaluation (kernelgym.judge.runner.Judge.memory_need and
build_memory_need): footprints plus copies of the forward's own outputs (kernelgym.judge.footprint.footprint)."""

from __future__ import annotations

from kernelgym.judge.footprint import Footprint, footprint, footprint_bound
from kernelgym.judge.runner import BUILD_FOOTPRINTS, BUILD_OUTPUT_COPIES, OUTPUT_COPIES, Judge
from kernelgym.judge.session import SNAPSHOT_BYTES
from kernelgym.tasks import load_tasks

GIB = 1 << 30


def test_an_elementwise_forwards_outputs_are_half_its_footprint():
    relu = load_tasks().get("L1/15_relu")
    total, outputs, traced, peak = footprint(relu)
    assert traced and outputs > 0 and total == 2 * outputs  # its input and its output, of one shape and dtype
    assert peak == total  # nothing is freed before the forward ends
    assert footprint_bound(relu) == (total, True)


def test_a_fused_forwards_peak_counts_only_the_intermediates_alive_at_once():
    """A chain of operators frees each intermediate once the next one has read it: the peak is what the forward
    holds at one moment (inputs, parameters, at most the two newest intermediates and the outputs), well under
    the sum of every operator's output, and never above it or below inputs, parameters and outputs."""
    from kernelgym.judge.inputs import build_model, make_inputs

    task = load_tasks().get("L2/20_linear_tall_skinny_relu_affine_tanh")
    total, outputs, traced, peak = footprint(task)
    assert traced and outputs > 0
    assert peak < 0.6 * total  # four elementwise steps after the matmul, each freeing the one before
    module = task.load_module(small=False)
    state = build_model(module, module.Model, 0, "meta", task.dtype, task.mode)
    inputs = make_inputs(module, 0, "meta")
    held = sum(t.numel() * t.element_size() for t in [*inputs, *state.parameters(), *state.buffers()])
    assert held + outputs <= peak <= total


def test_the_needs_count_the_outputs_copies_beside_the_footprints(tmp_path):
    judge = Judge(device="cpu", cache_dir=tmp_path)
    task = load_tasks().get("L1/15_relu")
    assert judge.memory_need(task) == 0  # no budget on the CPU
    judge.on_cpu = False  # the arithmetic a GPU judge does, from a footprint given here
    judge._footprints[task.key] = Footprint(total=30 * GIB, outputs=4 * GIB, traced=True, peak=10 * GIB)
    whole = (4 if judge.device_transfer else 3) * 10 * GIB + OUTPUT_COPIES * 4 * GIB + 2 * SNAPSHOT_BYTES["gpu"] + GIB
    assert judge.memory_need(task) == whole
    build = BUILD_FOOTPRINTS * 10 * GIB + BUILD_OUTPUT_COPIES * 4 * GIB + SNAPSHOT_BYTES["gpu"] + GIB
    assert judge.build_memory_need(task) == min(build, whole)
    judge._footprints[task.key] = Footprint(total=30 * GIB, outputs=0, traced=True, peak=10 * GIB)  # footprints only
    assert judge.memory_need(task) == whole - OUTPUT_COPIES * 4 * GIB
