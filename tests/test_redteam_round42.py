"""Red team, round 42: the timed calls and what the candidate may know of, and do to, their inputs.

The end-to-end attacks run with the static guards off (the run-time defence must hold on its own), on the CPU judge
(the Triton interpreter), as the earlier rounds' tests do. The CPU profile's timing is given the GPU profile's block
size (five calls a block, :data:`BLOCKED`): on the CPU ``quick`` times one block of three calls."""

from __future__ import annotations

import pytest

from conftest import SHORT
from kernelgym.judge.timing import TimingConfig

#: ``quick`` with the GPU's blocks of five calls on the CPU too (several blocks, as on a GPU)
BLOCKED = SHORT.with_overrides(cpu_timing=TimingConfig(warmup=1, min_runs=5, max_runs=15, budget_s=3.0, rel_ci=0.02,
                                                       block=5))

#: a task whose work is dominated by its parameters: a linear layer on a batch of a few rows (a GEMV, as in an
#: LLM's decode step), where the weight's bytes are the traffic and the rows are few
GEMV_TASK = '''"""A linear layer on a few rows."""
import torch
import torch.nn as nn

KERNELGYM = {{"category": "MatrixMultiply", "dtype": "float32", "flops": "2 * B * K * N", "bytes": "4 * (K * N + B * K)",
             "small": {{"B": {rows}, "K": {k}, "N": {n}}}}}

B = {rows}
K = {k}
N = {n}


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(K, N)

    def forward(self, x):
        return self.fc(x)


def get_inputs():
    return [torch.randn(B, K)]


def get_init_inputs():
    return []
'''

ROWS, K, N = 4, 1024, 1024

#: a candidate for it: an honest Triton GEMV (``ROUTE = None``), or one that, in the first timed call of each block,
#: works out the inputs of the block's later calls (the block's seed: ``ROUTE = "positions"`` reads it from the keys of
#: ``timing._sample_positions``, whose salt is the block's seed; ``"frames"`` calls the judge's own input maker, found
#: in ``CallTimer.time_block``'s frame) and computes all their outputs in one launch that reads the weight once; the
#: later calls find their inputs among the predicted ones (checked whole: a probe's outliers, or a wrong guess, take the
#: honest path) and return the stored output after a token launch (every timed call must launch a kernel of its own)
CANDIDATE = '''
import sys
import time
import torch
import torch.nn as nn
import triton
import triton.language as tl

ROUTE = {route!r}
PAD = 0.1
T = sys.modules["kernelgym.judge.timing"]
I = sys.modules["kernelgym.judge.inputs"]


@triton.jit
def gemv_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, K, N, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    cols = tl.program_id(0) * BN + tl.arange(0, BN)
    rows = tl.arange(0, BM)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        ks = k0 + tl.arange(0, BK)
        x = tl.load(x_ptr + rows[:, None] * K + ks[None, :], mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)
        w = tl.load(w_ptr + cols[None, :] * K + ks[:, None], mask=(cols[None, :] < N) & (ks[:, None] < K), other=0.0)
        acc += tl.dot(x, w)
    acc += tl.load(b_ptr + cols, mask=cols < N, other=0.0)[None, :]
    tl.store(y_ptr + rows[:, None] * N + cols[None, :], acc, mask=(rows[:, None] < M) & (cols[None, :] < N))


@triton.jit
def token_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs))


def gemv(x, w, b):
    M = x.shape[0]
    y = torch.empty((M, w.shape[0]), dtype=x.dtype, device=x.device)
    BM = max(16, triton.next_power_of_2(M))
    gemv_kernel[(triton.cdiv(w.shape[0], 128),)](x, w, b, y, M, w.shape[1], w.shape[0], BM=BM, BN=128, BK=128)
    return y


def timed_maker():
    f = sys._getframe()
    while f is not None and f.f_code.co_name != "time_block":
        f = f.f_back
    return None if f is None else f.f_locals


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear({k}, {n})
        self.salt, self.ahead, self.pad_s = None, [], 0.0

    def predicted(self, x):
        """The inputs of this block's later calls, as the judge will make them (``[]``: not known)."""
        if ROUTE == "positions":
            keys = list(T._sample_positions)
            salt = keys[-1][0] if keys else None
            if salt is None or salt == self.salt:
                return None
            self.salt = salt  # a new block: its seed is the salt of its samples' positions
            with I.SEEDED:
                out = []
                for index in range(1, 5):
                    torch.random.manual_seed(I.call_seed(salt, index))
                    out.append(torch.randn(x.shape))
                I.scramble_global_rng()
            return out
        frame = timed_maker()
        if frame is None or frame["k"] != 0:
            return None
        timer = frame["self"]
        try:
            return [timer.make_args(len(timer.times) + j)[0] for j in range(1, frame["calls"])]
        except RuntimeError:  # the maker refuses (round 42's mend): the honest path
            return None

    def forward(self, x):
        x = x.contiguous()
        w, b = self.fc.weight.contiguous(), self.fc.bias.contiguous()
        if ROUTE is None or sys.getswitchinterval() >= 1e-3:  # honest, or not a timed call
            return gemv(x, w, b)
        for i, (seen, out) in enumerate(self.ahead):
            if seen.shape == x.shape and torch.equal(seen, x):  # computed ahead, in the block's first call
                del self.ahead[i]
                token_kernel[(1,)](out, out, BLOCK=16)  # rewrites 16 of its own values: a launch of its own
                end = time.perf_counter() + self.pad_s  # padded: the runner's clock must not find the median a lie
                while time.perf_counter() < end:
                    pass
                return out
        ahead = self.predicted(x)
        if not ahead:
            return gemv(x, w, b)
        rows = x.shape[0]
        started = time.perf_counter()
        y = gemv(torch.cat([x] + ahead), w, b)  # every call of the block in one pass over the weight
        # the later calls are padded to a tenth of this one: a block then takes 1.4 calls' work for 5 calls, and the
        # runner's bound (the block's wall time per call over a slack of 2 on the CPU, 1.25 on a GPU) stays within
        # 3 times the median
        self.pad_s = (time.perf_counter() - started) * PAD
        self.ahead = [(a, y[rows * (j + 1):rows * (j + 2)].clone()) for j, a in enumerate(ahead)]
        return y[:rows].clone()
'''


@pytest.fixture(scope="module")
def gemv_task(tmp_path_factory):
    from kernelgym.testing.candidates import write_task

    text = GEMV_TASK.format(rows=ROWS, k=K, n=N)
    return write_task(tmp_path_factory.mktemp("tasks"), "1_gemv_few_rows", text)


def _candidate(route):
    return CANDIDATE.format(route=route, k=K, n=N)


@pytest.fixture(scope="module")
def honest_gemv(runtime_judge, gemv_task):
    result = runtime_judge.evaluate(gemv_task, _candidate(None), profile=BLOCKED)
    assert result.status == "ok", (result.message, result.flags)
    return result


@pytest.mark.timeout(600)
def test_an_honest_gemv_is_ok(honest_gemv):
    assert honest_gemv.runtime_ms > 0


@pytest.mark.timeout(600)
@pytest.mark.parametrize("route", ["positions", "frames"])
def test_a_blocks_calls_computed_together_in_its_first_call_gain_nothing(route, runtime_judge, gemv_task,
                                                                          honest_gemv):
    result = runtime_judge.evaluate(gemv_task, _candidate(route), profile=BLOCKED)
    print(route, result.status, result.runtime_ms, honest_gemv.runtime_ms, result.speedup, honest_gemv.speedup,
          result.message, result.flags)
    assert result.status == "ok", (result.status, result.message)
    assert result.runtime_ms > 0.4 * honest_gemv.runtime_ms, (result.runtime_ms, honest_gemv.runtime_ms)


def test_the_seeds_of_a_blocks_calls_say_nothing_of_each_other():
    """A call's input seed was ``block_seed * 1_000_003 + index`` (mod 2**62): from one call's seed every later one's
    followed. Now a keyed hash (BLAKE2b keyed with the block's seed, which the runner keeps)."""
    from kernelgym.judge.inputs import call_seed

    block = 0x2B7E151628AED2A6 >> 2
    seeds = [call_seed(block, i) for i in range(-3, 300)]
    assert len(set(seeds)) == len(seeds) and all(0 <= s < 2 ** 62 for s in seeds)
    steps = {(call_seed(block, i + 1) - call_seed(block, i)) % 2 ** 62 for i in range(20)}
    assert len(steps) == 20  # no fixed step from one call's seed to the next
    assert call_seed(block, 0) != block * 1_000_003 % 2 ** 62
    assert call_seed(block + 1, 0) != call_seed(block, 0)


def test_a_blocks_later_inputs_come_from_the_runner_and_only_in_their_turn(monkeypatch):
    """The worker makes a block's first call's inputs from the seed in the ``block`` command and each later call's from
    the ``seed`` line the runner sends once the call before it is sealed, read when the timer asks for that call's
    inputs. A forward that asks the maker for a later call's inputs (``frames`` route above) gets an error at once,
    not the seed (which the runner has not sent) nor a wait for it; a line other than the runner's seed is an
    error."""
    import types

    import torch

    from kernelgym.judge import worker
    from kernelgym.judge.inputs import call_seed, make_inputs

    lines = ["seed 777\n"]
    monkeypatch.setattr(worker, "_readline", lambda: lines.pop(0) if lines else "")
    monkeypatch.setattr(worker, "_RESULT_FD", 1 << 20)  # a worker's: the runner at the other end of its channel
    module = types.SimpleNamespace(get_inputs=lambda: [torch.randn(6)])
    timer = types.SimpleNamespace(times=[1.0, 2.0])  # two calls timed before this block
    make = worker._revealed_inputs(module, "cpu", 99, timer)
    assert torch.equal(make(2)[0], make_inputs(module, 99, "cpu")[0])
    for later in (3, 4):  # call 2 is not timed yet: its forward asking for the next calls' inputs
        with pytest.raises(RuntimeError, match="before their turn"):
            make(later)
    assert lines == ["seed 777\n"]  # nothing read
    timer.times.append(3.0)
    assert torch.equal(make(3)[0], make_inputs(module, 777, "cpu")[0]) and lines == []
    assert torch.equal(make(3)[0], make_inputs(module, 777, "cpu")[0])  # asked again: the same, nothing read
    timer.times.append(4.0)
    lines.append("check 0\n")
    with pytest.raises(RuntimeError, match="seed for the next timed call"):
        make(4)
    monkeypatch.setattr(worker, "_RESULT_FD", None)  # a stand-in without a channel (no runner, no seals)
    bare = types.SimpleNamespace(times=[])
    alone = worker._revealed_inputs(module, "cpu", 99, bare)
    assert alone(0)
    bare.times.append(1.0)
    assert torch.equal(alone(1)[0], make_inputs(module, call_seed(99, 1), "cpu")[0]) and lines == []


def test_a_stash_in_a_timed_calls_unsampled_input_bytes_never_reaches_a_later_call():
    """The known open gap: a timed call's inputs are sampled at positions the forward can read
    (``timing._sample_positions``), so it can write where they miss, unseen. Kept as a regression of why that gains
    nothing: every byte of a call's inputs is poisoned once its snapshot is taken (``scrub``), so what a forward
    stashes there (here its own output, in every unsampled byte) is gone when the next call could read it; its
    outputs may not lie over its inputs (round 39); and the runner compares them with a reference run on inputs of
    its own."""
    import torch

    from kernelgym.judge import timing

    kept, seen = [], []

    def forward(x):
        raw = x.view(-1).view(torch.uint8)
        if kept:  # the previous call's input, kept alive: what its unsampled bytes hold now
            prev, where = kept[-1]
            seen.append(prev[where].clone())
        positions = [p for key, p in timing._sample_positions.items() if key[2] == raw.numel()][-1]
        where = torch.ones(raw.numel(), dtype=torch.bool)
        where[positions] = False
        y = torch.relu(x) * 2 + 1
        raw[where] = y.view(-1).view(torch.uint8)[where]  # the output, stashed where the samples miss
        kept.append((raw, where))
        return y

    gen = torch.Generator().manual_seed(0)
    timer = timing.CallTimer(forward, lambda i: [torch.randn(128, 256, generator=gen)], "cpu", scrub_released=True)
    changed, keep = [], []
    timer.time_block(4, keep=keep, changed=changed, salt=12345, layouts=[], samples=[], sample_key=1)
    assert len(seen) == 3 and all(bool((s == timing.POISON_BYTE).all()) for s in seen), "a stash survived its call"
    # the writes went unseen (the gap this test is about: a mend that closes it changes this line, not the one above)
    assert all(w == [] for w in changed)
