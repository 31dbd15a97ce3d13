"""Red team, round 44 (timing and inputs): inputs nested in a list inside ``get_inputs()``'s list, and readers of the
worker's command channel (fd 0) that the worker's thread check cannot see.

The end-to-end attacks run with the static guards off (the run-time defence must hold on its own), on the CPU judge
(the Triton interpreter), as the earlier rounds' tests do."""

from __future__ import annotations

import pytest

from conftest import SHORT
from test_redteam_round42 import BLOCKED, CANDIDATE as R42_CANDIDATE, K, N, gemv_task  # noqa: F401 (fixture)

#: a task whose inputs are nested: ``get_inputs()`` returns one list of two matrices (as a KernelBench problem may:
#: a forward taking a list of tensors), and the work is a copy of the first half of the first one's rows
NESTED_TASK = '''"""The first half of the rows of the first matrix of a list, copied."""
import torch
import torch.nn as nn

KERNELGYM = {{"category": "Index", "dtype": "float32", "flops": "B * D", "bytes": "4 * B * D",
             "small": {{"B": {rows}, "D": {cols}}}}}

B = {rows}
D = {cols}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, parts):
        return parts[0][: parts[0].shape[0] // 2].clone()


def get_inputs():
    return [[torch.randn(B, D), torch.randn(B, D)]]


def get_init_inputs():
    return []
'''

#: a candidate for it: an honest Triton copy (``ROUTE = None``); or (``"view"``) in every call a view of the nested
#: input's own rows, after a token launch (every call must launch one of its own kernels): the judge's snapshot
#: ``clone``, after the timed interval, makes the copy that is the task's whole work (round 39's gain, with no
#: re-pointing needed: the aliasing check looked at the top-level inputs only); or (``"scribble"``) the honest copy,
#: then the second nested matrix overwritten (an input written into, unseen by the trials' whole comparison and by
#: the timed calls' samples, which looked at the top-level inputs only: the channel a forward could pass state through)
CANDIDATE = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl

ROUTE = {route!r}


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


def copied(x, rows):
    y = torch.empty((rows, x.shape[1]), dtype=x.dtype, device=x.device)
    n = y.numel()
    copy_kernel[(triton.cdiv(n, 16384),)](x, y, n, BLOCK=16384)
    return y


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, parts):
        x = parts[0]
        rows = x.shape[0] // 2
        if ROUTE == "view":
            token = torch.empty(1, dtype=x.dtype, device=x.device)
            copy_kernel[(1,)](x, token, 1, BLOCK=16)
            return x[:rows]
        y = copied(x, rows)
        if ROUTE == "scribble":
            spare = parts[1]
            copy_kernel[(triton.cdiv(y.numel(), 16384),)](y, spare, y.numel(), BLOCK=16384)
        return y
'''

ROWS, COLS = 512, 2048


@pytest.fixture(scope="module")
def nested_task(tmp_path_factory):
    from kernelgym.testing.candidates import write_task

    text = NESTED_TASK.format(rows=ROWS, cols=COLS)
    return write_task(tmp_path_factory.mktemp("tasks"), "1_nested_head_rows", text)


@pytest.fixture(scope="module")
def honest_nested(runtime_judge, nested_task):
    result = runtime_judge.evaluate(nested_task, CANDIDATE.format(route=None), profile=SHORT)
    assert result.status == "ok", (result.message, result.flags)
    return result


@pytest.mark.timeout(300)
def test_an_honest_copy_from_a_nested_input_is_ok(honest_nested):
    assert honest_nested.runtime_ms > 0


@pytest.mark.timeout(300)
@pytest.mark.parametrize("route, flag", [("view", "shares memory with an input"), ("scribble", "modified its input")])
def test_a_forward_that_returns_or_writes_a_nested_input_is_caught(route, flag, runtime_judge, nested_task,
                                                                   honest_nested):
    """``view``: every call returned a view of the nested input's rows after a token launch, the judge's snapshot
    making the copy untimed; ``scribble``: the honest copy, and the other nested input overwritten. Both were ``ok``
    before the mend (numbers in the report of round 44), as the aliasing check, the trials' comparison of the inputs
    with their copies, the timed calls' samples and the scrub looked at ``get_inputs()``'s top-level tensors only."""
    result = runtime_judge.evaluate(nested_task, CANDIDATE.format(route=route), profile=SHORT)
    print(route, result.status, result.runtime_ms, honest_nested.runtime_ms, result.message, result.flags)
    assert result.status in ("incorrect", "rejected"), (result.status, result.runtime_ms, result.message)
    assert flag in result.message + " ".join(f["reason"] for f in result.flags), (result.message, result.flags)


def _nested_module(make):
    import types

    return types.SimpleNamespace(get_inputs=make)


def test_a_timed_call_samples_checks_and_scrubs_nested_inputs():
    """In a timed call every nested input is sampled before and after the call, counted by the aliasing check and
    scrubbed, all from the inputs as the call got them: a forward that also rebuilds the list it was given (the
    written tensor swapped out for a copy) is seen as well."""
    import torch

    from kernelgym.judge import timing

    kept = []

    def forward(x, parts):
        first, second = parts
        kept.append((first, second))
        second.mul_(-1)  # written into ...
        parts[1] = second.clone()  # ... and swapped out of the list the forward was given
        return first[:2]  # a view of a nested input

    gen = torch.Generator().manual_seed(0)
    make = lambda i: [torch.randn(4, 8, generator=gen), [torch.randn(4, 8, generator=gen),  # noqa: E731
                                                         torch.randn(4, 8, generator=gen)]]
    timer = timing.CallTimer(forward, make, "cpu", scrub_released=True)
    changed, layouts = [], []
    timer.time_block(2, keep=[], changed=changed, salt=7, layouts=layouts, samples=[], sample_key=1)
    assert changed == [[2], [2]]  # the third input, in input_leaves' order
    assert all(shown[0]["aliases_input"] for shown in layouts)
    for first, second in kept:
        for tensor in (first, second):
            assert bool((tensor.view(torch.uint8) == timing.POISON_BYTE).all()), "a nested input was not scrubbed"


def test_outliers_reach_nested_inputs_and_flat_inputs_draw_as_before():
    """Every floating tensor of a call's inputs gets its outliers, nested ones too, drawn in ``input_leaves``'
    order: a flat task's inputs are drawn as they were before nested ones counted."""
    import torch

    from kernelgym.judge import inputs

    nested = _nested_module(lambda: [torch.randn(64, 64), [torch.randn(64, 64), torch.ones(3, dtype=torch.int64)]])
    plain, spiked = inputs.make_inputs(nested, 5, "cpu"), inputs.make_inputs(nested, 5, "cpu", inputs.OUTLIERS)
    assert type(spiked[1]) is list and torch.equal(spiked[1][1], plain[1][1])
    for before, after in ((plain[0], spiked[0]), (plain[1][0], spiked[1][0])):
        assert not torch.equal(before, after) and float(after.abs().max()) >= 9 * float(before.abs().max())
    flat = _nested_module(lambda: [torch.randn(64, 64), torch.randn(64, 64)])
    made = inputs.make_inputs(flat, 5, "cpu", inputs.OUTLIERS)
    gen = torch.Generator(device="cpu").manual_seed(5 ^ 0x5EED)
    expected = [inputs._inject_outliers(x, gen) for x in inputs.make_inputs(flat, 5, "cpu")]
    assert all(torch.equal(a, b) for a, b in zip(made, expected))


@pytest.mark.parametrize("hidden", ["dict", "named_tuple", "list_subclass", "too_deep", "itself"])
def test_inputs_hidden_where_the_judge_does_not_look_are_refused(hidden):
    """A tensor inside a container the judge does not open (or nested past ``MAX_NESTING``) would escape every check
    of the inputs: such inputs are refused where they are made, with the reason."""
    import collections

    import torch

    from kernelgym.judge import inputs

    x = torch.randn(3)
    deep = [x]
    for _ in range(inputs.MAX_NESTING + 1):  # an input MAX_NESTING + 1 lists deep
        deep = [deep]
    itself: list = [x]
    itself.append(itself)
    made = {"dict": [x, {"h": x}], "named_tuple": [collections.namedtuple("State", "h c")(x, x)],
            "list_subclass": [type("Parts", (list,), {})([x])], "too_deep": deep, "itself": [itself]}[hidden]
    with pytest.raises(inputs.InputsError, match="get_inputs"):
        inputs.make_inputs(_nested_module(lambda: made), 1, "cpu")
    inputs.make_inputs(_nested_module(lambda: [x, {"mode": "sum"}, (1, 2), [[[[x]]]]]), 1, "cpu")  # allowed


@pytest.mark.timeout(300)
def test_a_task_whose_inputs_hide_a_tensor_is_the_judges_error_before_any_candidate_runs(runtime_judge,
                                                                                          tmp_path_factory):
    from kernelgym.testing.candidates import write_task

    text = NESTED_TASK.format(rows=16, cols=16).replace("[[torch.randn(B, D), torch.randn(B, D)]]",
                                                        '[{"a": torch.randn(B, D)}]')
    task = write_task(tmp_path_factory.mktemp("tasks"), "1_inputs_in_a_dict", text)
    result = runtime_judge.evaluate(task, CANDIDATE.format(route=None), profile=SHORT)
    assert result.status == "crashed" and result.judge_fault, (result.status, result.message)
    assert "tensor inside a dict" in result.message, result.message


#: C code a candidate builds (with the host's compiler, at load) and starts as a native thread of the worker: no
#: Python frame, so the worker's thread checks (``sys._current_frames``) never see it. It waits on fd 0, the worker's
#: command channel, ahead of the worker's own read (a pipe wakes one waiting reader, the first to wait): every line it
#: takes it writes back at once through ``/proc/self/fd/0`` opened for writing and waits until the worker has read it;
#: a ``seed`` line (a timed call's seed, sent once the call before it is sealed) it holds until the worker's main
#: thread is blocked reading fd 0 (``/proc/self/task/PID/syscall``: past every check before the wait), calls the
#: candidate's Python callback with it, and only then writes it back.
NATIVE_SOURCE = r"""
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

typedef void (*callback_t)(const char *line);
static callback_t callback;
static int back = -1;
static pid_t main_tid;

static int main_reads_fd0(void) {
    char path[64], text[128];
    snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)main_tid);
    int fd = open(path, O_RDONLY);
    if (fd < 0) return 0;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0) return 0;
    text[n] = 0;
    return strncmp(text, "0 0x0 ", 6) == 0;
}

static void *steal(void *unused) {
    char line[4096];
    for (;;) {
        ssize_t n = read(0, line, sizeof line - 1);
        if (n <= 0) return NULL;
        line[n] = 0;
        if (n > 5 && memcmp(line, "seed ", 5) == 0) {
            while (!main_reads_fd0()) usleep(20);
            callback(line);
        }
        if (write(back, line, n) != n) return NULL;
        int left = 1;
        while (ioctl(0, FIONREAD, &left) == 0 && left > 0) usleep(20);
    }
}

int start(callback_t f) {
    pthread_t thread;
    callback = f;
    main_tid = getpid();
    back = open("/proc/self/fd/0", O_WRONLY);
    if (back < 0) return -1;
    return pthread_create(&thread, NULL, steal, NULL);
}
"""

#: round 42's GEMV with the native thread above (``NATIVE = True``): the thread's callback gets the next timed call's
#: seed line while the worker's main thread is blocked reading it (so no thread check of the worker runs meanwhile:
#: they ran before its read), finds the judge's own input maker in the main thread's ``CallTimer.time_block`` frame
#: (its task module, device and probe, as round 43's candidate did), makes that call's inputs and computes its output,
#: all outside the call's timed interval; the call returns it after a token launch, padded to a quarter of the work so
#: that the runner's clock keeps the verdict ``ok`` (round 43's padding)
NATIVE_CANDIDATE = R42_CANDIDATE.replace("ROUTE = {route!r}", "ROUTE = None\nNATIVE = {native!r}").replace(
    "class ModelNew(nn.Module):", '''
import ctypes
import os
import subprocess
import tempfile
import threading

I2 = sys.modules["kernelgym.judge.inputs"]
STATE = {{"ahead": None, "work_s": None, "model": None, "callback": None}}
SOURCE = {source!r}
MAIN = threading.main_thread().ident


def _ahead(line):
    """The native thread's callback: ``line`` is the next timed call's seed line, the main thread blocked reading."""
    try:
        f = sys._current_frames().get(MAIN)
        while f is not None and f.f_code.co_name != "time_block":
            f = f.f_back
        model = STATE["model"]
        if f is None or model is None or f.f_locals.get("seal") is None:
            return
        local = f.f_locals
        make = local["self"].make_args
        cells = dict(zip(make.__code__.co_freevars, (c.cell_contents for c in make.__closure__)))
        words = line.decode().split()
        outlier = cells["outlier"] if local["k"] == cells["probe"] else I2.NO_OUTLIERS
        x = I2.make_inputs(cells["module"], int(words[1]), cells["device"], outlier)[0]
        started = time.perf_counter()
        y = gemv(x.contiguous(), model.fc.weight.contiguous(), model.fc.bias.contiguous())
        STATE["work_s"] = time.perf_counter() - started
        STATE["ahead"] = (x, y)
    except Exception:
        STATE["ahead"] = None


def _start_native():
    folder = tempfile.mkdtemp()
    source, library = os.path.join(folder, "steal.c"), os.path.join(folder, "steal.so")
    with open(source, "w") as f:
        f.write(SOURCE)
    subprocess.run(["gcc", "-O1", "-shared", "-fPIC", "-o", library, source, "-lpthread"], check=True,
                   capture_output=True)
    native = ctypes.CDLL(library)
    kind = ctypes.CFUNCTYPE(None, ctypes.c_char_p)
    STATE["callback"] = kind(_ahead)  # kept alive for the thread
    native.start.argtypes = [kind]
    if native.start(STATE["callback"]) != 0:
        raise RuntimeError("the native thread did not start")


class ModelNew(nn.Module):''').replace('''        self.salt, self.ahead, self.pad_s = None, [], 0.0''', '''        self.salt, self.ahead, self.pad_s = None, [], 0.0
        if NATIVE:
            _start_native()''').replace('''        if ROUTE is None or sys.getswitchinterval() >= 1e-3:  # honest, or not a timed call
            return gemv(x, w, b)''', '''        STATE["model"] = self
        if not NATIVE or sys.getswitchinterval() >= 1e-3:  # honest, or not a timed call
            return gemv(x, w, b)
        ahead, STATE["ahead"] = STATE["ahead"], None
        if ahead is not None and ahead[0].shape == x.shape and torch.equal(ahead[0], x):
            out = ahead[1]
            STATE["served"] = STATE.get("served", 0) + 1
            print(SERVED_MARK, STATE["served"], file=sys.stderr, flush=True)  # for the test: a line was held
            token_kernel[(1,)](out, out, BLOCK=16)
            end = time.perf_counter() + PAD * 2.5 * STATE["work_s"]
            while time.perf_counter() < end:
                pass
            return out
        return gemv(x, w, b)''')


#: what the native candidate prints to its stderr (the result's ``log_tail``) each time a timed call returns an output
#: computed while its thread held that call's seed line
SERVED_MARK = "kernelgym-test: served from a held seed line"


def _native_candidate(native: bool) -> str:
    return NATIVE_CANDIDATE.format(native=native, source=NATIVE_SOURCE, k=K, n=N).replace("SERVED_MARK",
                                                                                         repr(SERVED_MARK))


@pytest.fixture(scope="module")
def honest_gemv(runtime_judge, gemv_task):  # noqa: F811
    result = runtime_judge.evaluate(gemv_task, _native_candidate(False), profile=BLOCKED)
    assert result.status == "ok", (result.message, result.flags)
    return result


@pytest.mark.timeout(900)
def test_a_native_thread_that_holds_the_next_seed_line_gains_nothing(runtime_judge, gemv_task,  # noqa: F811
                                                                     honest_gemv):
    """A native thread (built by the candidate with the host's compiler; no Python frame, so the worker's checks of
    round 43 never see it) took each timed call's seed line from fd 0 ahead of the worker, did that call's work in a
    callback while the worker's main thread waited for the line, and wrote the line back only then: ``ok`` at
    163.6 ms per call against the honest GEMV's 311.2 ms (CPU, a loaded host; the runtime was the runner's bound, the
    reported median far below it). Now the worker's wait for a seed beyond ``timing.SEED_WAIT_ALLOWANCE_MS`` is the
    call's time: the attack still runs (its calls' seed waits are the work it did) and gains nothing."""
    import shutil

    if shutil.which("gcc") is None:
        pytest.skip("no C compiler to build the native thread with")
    result = runtime_judge.evaluate(gemv_task, _native_candidate(True), profile=BLOCKED)
    spread = result.runtime_spread or {}
    print(result.status, result.runtime_ms, honest_gemv.runtime_ms, result.message, result.flags,
          spread.get("fastest_block_steps_ms"), spread.get("runner_block_walls_ms"))
    assert result.status == "ok", (result.status, result.message, result.log_tail[-1500:])
    # the attack ran: some timed call returned the output its callback made while the thread held the seed line (the
    # candidate prints a mark each time; the fastest block may be one where the race left every line alone, so its
    # seed wait is no witness of that)
    assert SERVED_MARK in result.log_tail, ("the thread held no line", result.log_tail[-500:])
    assert result.runtime_ms > 0.8 * honest_gemv.runtime_ms, (result.runtime_ms, honest_gemv.runtime_ms)


def test_a_timed_calls_wait_for_its_seed_beyond_the_allowance_is_its_time():
    """The inputs' maker says how long it waited for the call's seed (``CallTimer.seed_wait_ms``); the timer reads it
    before the call (a forward that resets it changes nothing) and counts what is beyond the allowance."""
    import time

    from kernelgym.judge import timing

    def make(i):
        timer.seed_wait_ms = 40.0 if i % 2 else 0.2  # a held line, then the runner's usual turnaround
        return [1.0]

    def forward(x):
        timer.seed_wait_ms = 0.0
        time.sleep(0.001)
        return x

    timer = timing.CallTimer(forward, make, "cpu")
    times = timer.time_block(4)
    held = 40.0 - timing.SEED_WAIT_ALLOWANCE_MS
    assert all(t < 20.0 for t in times[0::2]) and all(held < t < held + 20.0 for t in times[1::2]), times
    assert timer.times == times and timer.step_ms["seed_wait"] == pytest.approx((40.0 + 0.2) / 2, abs=0.01)


def test_the_worker_measures_how_long_it_waited_for_a_seed(monkeypatch):
    import time

    from kernelgym.judge import worker

    def slow_line():
        time.sleep(0.03)
        return "seed 11\n"

    monkeypatch.setattr(worker, "_readline", slow_line)
    seed, waited = worker._seed_and_wait()
    assert seed == 11 and 25.0 < waited < 1000.0
