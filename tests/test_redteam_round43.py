"""Red team, round 43: the per-call seed protocol of round 42 (``seed SEED`` on the command channel) and its
neighbours.

Round 42 made each timed call's input seed a keyed hash of a block secret that the runner sends (``Command.SEED_NEXT``)
only once it has read the previous call's seal. The worker read it with ``sys.stdin.readline`` - the very text
stream every piece of code in the process can read, peek at or write into. These attacks run on the real CPU judge
(the Triton interpreter) with the static guards off, with round 42's GEMV task and its blocks of five calls."""

from __future__ import annotations

import sys

import pytest

from test_redteam_round42 import BLOCKED, CANDIDATE as R42_CANDIDATE, K, N, gemv_task  # noqa: F401 (fixture)

#: the honest GEMV of round 42
HONEST = R42_CANDIDATE.format(route=None, k=K, n=N)

#: A candidate that does each timed call's work (but a block's first) before the call, outside its timed interval:
#: a weakref callback on the output it returns runs when the timer drops that output (after the call's seal, before
#: the next call's inputs are made); it waits there for the runner's ``seed`` line of the next call WITHOUT consuming
#: it (``ROUTE = "peek"``: ``sys.stdin.buffer.peek``, which leaves the bytes in the buffer the worker's
#: ``sys.stdin.readline`` reads next; ``"reinject"``: reads the line and writes it back into the worker's own stdin
#: pipe through ``/proc/self/fd/0`` opened for writing; ``"fd0"``: ``os.read(0)`` then the same write-back), makes
#: that call's inputs with the judge's own maker (its task module, device and probe found in the timer's closure),
#: computes the output, and the timed call returns it after a token launch, padded to a share of the real work so
#: that the runner's clock (which does see the work) keeps the verdict ``ok``.
CANDIDATE = R42_CANDIDATE.replace("ROUTE = {route!r}", "ROUTE = None\nSTEAL = {steal!r}").replace(
    "class ModelNew(nn.Module):", '''
import os
import weakref

I2 = sys.modules["kernelgym.judge.inputs"]
STATE = {{"ahead": None, "refs": [], "work_s": None}}


def _next_seed_line():
    """The runner's next ``seed`` line, read without the worker losing it."""
    if STEAL == "peek":
        buf = sys.stdin.buffer
        data = buf.peek(1)
        while b"\\n" not in data:
            data = buf.peek(len(data) + 1)
        return data.split(b"\\n", 1)[0].decode()
    if STEAL == "reinject":
        line = sys.stdin.readline()
    else:  # fd0: below the text stream (the worker's stream buffers nothing past the line it read)
        raw = b""
        while not raw.endswith(b"\\n"):
            raw += os.read(0, 1)
        line = raw.decode()
    fd = os.open("/proc/self/fd/0", os.O_WRONLY)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)
    return line.strip()


def _ahead(model):
    """Weakref callback: the timer just dropped a timed call's output (after its seal)."""
    try:
        f = sys._getframe(1)
        while f is not None and f.f_code.co_name != "time_block":
            f = f.f_back
        if f is None or f.f_locals.get("seal") is None or f.f_locals["k"] + 1 >= f.f_locals["calls"]:
            return
        make = f.f_locals["self"].make_args
        cells = dict(zip(make.__code__.co_freevars, (c.cell_contents for c in make.__closure__)))
        words = _next_seed_line().split()
        if len(words) != 2 or words[0] != "seed":
            return
        nxt = f.f_locals["k"] + 1
        outlier = cells["outlier"] if nxt == cells["probe"] else I2.NO_OUTLIERS
        x = I2.make_inputs(cells["module"], int(words[1]), cells["device"], outlier)[0]
        started = time.perf_counter()
        y = gemv(x.contiguous(), model.fc.weight.contiguous(), model.fc.bias.contiguous())
        STATE["work_s"] = time.perf_counter() - started
        STATE["ahead"] = (x, y)
    except Exception:
        STATE["ahead"] = None


class ModelNew(nn.Module):''').replace('''        if ROUTE is None or sys.getswitchinterval() >= 1e-3:  # honest, or not a timed call
            return gemv(x, w, b)''', '''        if sys.getswitchinterval() >= 1e-3:  # not a timed call
            return gemv(x, w, b)
        ahead, STATE["ahead"] = STATE["ahead"], None
        if ahead is not None and ahead[0].shape == x.shape and torch.equal(ahead[0], x):
            out = ahead[1]
            token_kernel[(1,)](out, out, BLOCK=16)
            end = time.perf_counter() + PAD * 2.5 * STATE["work_s"]
            while time.perf_counter() < end:
                pass
        else:
            out = gemv(x, w, b)
        STATE["refs"].append(weakref.ref(out, lambda _r, m=self: _ahead(m)))
        del STATE["refs"][:-4]
        return out''')


def _candidate(steal):
    return CANDIDATE.format(steal=steal, k=K, n=N)


@pytest.fixture(scope="module")
def honest_gemv(runtime_judge, gemv_task):  # noqa: F811
    result = runtime_judge.evaluate(gemv_task, HONEST, profile=BLOCKED)
    assert result.status == "ok", (result.message, result.flags)
    return result


@pytest.mark.timeout(900)
@pytest.mark.parametrize("steal", ["peek", "reinject", "fd0"])
def test_a_calls_work_done_ahead_from_the_next_seed_line_gains_nothing(steal, runtime_judge, gemv_task,  # noqa: F811
                                                                        honest_gemv):
    result = runtime_judge.evaluate(gemv_task, _candidate(steal), profile=BLOCKED)
    print(steal, result.status, result.runtime_ms, honest_gemv.runtime_ms, result.message, result.flags,
          (result.runtime_spread or {}).get("runner_block_walls_ms"))
    assert result.status != "ok" or result.runtime_ms > 0.8 * honest_gemv.runtime_ms, \
        (result.status, result.runtime_ms, honest_gemv.runtime_ms)


def test_the_worker_waits_for_a_seed_only_with_its_own_threads(monkeypatch):
    """A candidate thread could wait on fd 0 for the next call's seed line, take it, do that call's work and put the
    line back (the callback route above, from a thread): the worker refuses to wait for a seed while a thread it did
    not start runs Python."""
    import threading

    from kernelgym.judge import worker

    lines = ["seed 5\n", "seed 6\n"]
    monkeypatch.setattr(worker, "_readline", lambda: lines.pop(0))
    monkeypatch.setattr(worker, "_BASE_THREADS", set(sys._current_frames()))  # the threads running now (others' too)
    assert worker._next_call_seed() == 5
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        with pytest.raises(RuntimeError, match="thread of the candidate"):
            worker._next_call_seed()
    finally:
        stop.set()
        thread.join()
    assert lines == ["seed 6\n"]


def test_the_worker_waits_for_a_seed_only_with_its_own_signal_handlers(monkeypatch):
    """A Python signal handler runs in the main thread while it is blocked reading: one the candidate set (a timer
    signal) could take the next call's seed line in the worker's wait, do that call's work and put the line back. The
    worker refuses to wait for a seed while any signal's handler differs from the one it had before the candidate
    loaded."""
    import signal

    from kernelgym.judge import worker

    lines = ["seed 5\n", "seed 6\n"]
    monkeypatch.setattr(worker, "_readline", lambda: lines.pop(0))
    monkeypatch.setattr(worker, "_BASE_HANDLERS", worker._signal_handlers())
    assert worker._next_call_seed() == 5
    before = signal.getsignal(signal.SIGALRM)
    signal.signal(signal.SIGALRM, lambda signum, frame: None)
    try:
        with pytest.raises(RuntimeError, match="signal handler of the candidate"):
            worker._next_call_seed()
    finally:
        signal.signal(signal.SIGALRM, before)
    assert lines == ["seed 6\n"]
    assert worker._next_call_seed() == 6
