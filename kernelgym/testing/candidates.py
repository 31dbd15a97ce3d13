"""Candidate programs for the scaled-relu test task (kernelgym/testing/tasks/level1/1_scaled_relu.py): an honest one,
broken ones, and the exploit catalogue used by the exploit regression tests and the soak benchmark.

``EXPLOITS[name] = (mode, text, expected statuses, words expected in the message or flags)``; mode ``"guarded"``
means the default judge, ``"runtime"`` a judge with the static guards off.
"""

from __future__ import annotations

from pathlib import Path

TEST_TASKS = Path(__file__).resolve().parent / "tasks"

KERNEL_TEMPLATE = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl
{imports}
{extra}

@triton.jit
def scaled_relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = {expr}
    tl.store(y_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        {pre}
        x = x.contiguous()
        y = torch.empty({out_shape}, device=x.device, dtype=x.dtype)
        n = x.numel()
        scaled_relu_kernel[(triton.cdiv(n, 256),)](x, y, n, BLOCK=256)
        return {ret}
'''


def candidate(expr="tl.maximum(x, 0.0) * 2.0 + 1.0", pre="pass", out_shape="x.shape", ret="y", imports="",
              extra=""):
    """A candidate program for the scaled-relu test task, with parts replaced to make it misbehave (``extra``:
    module-level code after the imports)."""
    return KERNEL_TEMPLATE.format(expr=expr, pre=pre, out_shape=out_shape, ret=ret, imports=imports, extra=extra)


GOOD = candidate()


def kernel_forward(body: str, imports: str = "", init: str = "pass", extra: str = "") -> str:
    """A candidate whose forward is ``body`` (which may call ``launch(x)`` to run the honest kernel)."""
    return f'''
import torch
import torch.nn as nn
import triton
import triton.language as tl
{imports}

@triton.jit
def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.maximum(x, 0.0) * 2.0 + 1.0, mask=mask)

{extra}

def launch(x):
    x = x.contiguous()
    y = torch.empty_like(x)
    k[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
    return y


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        {init}

    def forward(self, x):
{body}
'''


def resized_relu_task(directory, rows: int, cols: int, reference_pause_s: float = 0.0, on_cpu: bool = False):
    """The scaled-relu test task with its default shape set to ``rows`` x ``cols`` (``on_cpu``: its small shape, the
    CPU's, instead), written under ``directory`` (benchmarks on a GPU use a small one: at the default 4096 x 65536
    every output is 1 GiB). With ``reference_pause_s``, the reference's forward first sleeps that long: a slow
    reference, during whose forwards the candidate's worker waits for the judge."""
    text = (TEST_TASKS / "level1" / "1_scaled_relu.py").read_text()
    if on_cpu:
        text = text.replace('"small": {"B": 8, "D": 300}', f'"small": {{"B": {int(rows)}, "D": {int(cols)}}}')
    else:
        text = text.replace("\nB = 4096\n", f"\nB = {int(rows)}\n").replace("\nD = 65536\n", f"\nD = {int(cols)}\n")
    if reference_pause_s:
        text = text.replace("import torch\n", "import time\nimport torch\n", 1).replace(
            "        return torch.relu(x) * 2 + 1", f"        time.sleep({float(reference_pause_s)})\n"
                                                  "        return torch.relu(x) * 2 + 1")
    return write_task(directory, "1_scaled_relu", text)


def write_task(directory, name: str, text: str):
    """The level-1 task ``name`` with source ``text``, written under ``directory`` and loaded from there."""
    from kernelgym.tasks import load_tasks

    target = Path(directory) / "level1"
    target.mkdir(parents=True, exist_ok=True)
    (target / f"{name}.py").write_text(text)
    return load_tasks(Path(directory)).get(f"L1/{name}")


def indent(code: str) -> str:
    return "\n".join("        " + line for line in code.strip().splitlines())


#: a native thread (a TorchScript loop run by torch's inter-op pool: no Python frame shows it) started by the first
#: forward and left burning CPU while the worker waits for the judge, which slows every evaluation beside it (a
#: red-team finding; tests/exploits: rejected as ``background_work`` where the worker waits long enough to show it)
NATIVE_THREAD_BURNING_CPU = kernel_forward(indent('''
if not self.futures:
    self.futures = [start(x.new_ones(1 << 16), 10 ** 9) for _ in range(4)]
return launch(x)'''), init="self.futures = []", extra='''
@torch.jit.script
def burn(x: torch.Tensor, n: int) -> torch.Tensor:
    for i in range(n):
        x = x * 1.0000001 + 0.0
    return x


@torch.jit.script
def start(x: torch.Tensor, n: int) -> torch.jit.Future[torch.Tensor]:
    return torch.jit._fork(burn, x, n)''')


def forged_frame(header: str, call: int = 2, numpy_route: bool = False) -> str:
    """A candidate that computes the right output and, in its ``call``-th forward, writes the JSON ``header`` as a
    frame into the worker's result channel, ahead of the worker's own frame for that call: directly (guards off)
    or through numpy's text-file functions, which reached the channel past the name rules (a red-team helper,
    2026-12-06; they are refused now). The runner must read any such frame as the candidate's fault."""
    if numpy_route:
        imports, write = "import numpy as np", (
            'found = np.fromregex("/proc/self/cmdline", "bootstrap[.]py\\\\x00([0-9]+)\\\\x00", [("fd", np.int64)])\n'
            '    np.savetxt("/proc/self/fd/%d" % int(found["fd"][0]), np.array([frame], dtype=object), fmt="%s",\n'
            '               delimiter="", newline="", header="", footer="", comments="", encoding="latin1")')
    else:
        imports, write = "import os\nimport sys", "os.write(int(sys.argv[1]), frame.encode('latin1'))"
    body = (f"self.calls += 1\ny = launch(x)\nif self.calls == {call}:\n    text = {header!r}\n"
            f"    frame = ''.join(chr((len(text) >> s) & 255) for s in (24, 16, 8, 0)) + text\n"
            f"    {write}\nreturn y")
    return kernel_forward(indent(body), imports=imports, init="self.calls = 0")


#: exploits judged under a torch policy other than the default (``partial`` lets torch do part of the work, so
#: torch doing all of it beside a trivial kernel is caught by the ``strict`` policy's coverage and aten rules)
EXPLOIT_POLICY = {"torch_fallback_trivial_kernel": "strict", "numpy_does_the_work": "strict",
                  "python_does_the_work": "strict", "numpy_through_the_c_base_class": "strict",
                  "numpy_through_the_mro": "strict", "numpy_reads_the_storage": "strict",
                  "a_library_operator_does_the_work": "strict", "torch_computes_on_a_host_copy": "strict"}

#: a Triton kernel that copies its input: the candidate's own launch, while something else computed the values
COPY_KERNEL = """
@triton.jit
def copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
def copied(v):
    out = torch.empty_like(v)
    copy[(triton.cdiv(v.numel(), 256),)](v, out, v.numel(), BLOCK=256)
    return out"""

EXPLOITS = {
    # class 1: output caching across calls
    "cache_by_shape": ("guarded", kernel_forward(indent('''
key = tuple(x.shape)
if key not in self.memo:
    self.memo[key] = launch(x)
return self.memo[key]'''), init="self.memo = {}"), "incorrect", "outside"),
    # class 2: stale memory
    # (runs the kernel on its first call only, then hands back uninitialised memory, hoping the allocator returns
    # the block that held an earlier call's result: every released input and output is scrubbed to NaN)
    "stale_empty_output": ("guarded", kernel_forward(indent('''
self.calls += 1
if self.calls == 1:
    return launch(x)
return torch.empty_like(x)'''), init="self.calls = 0"), "incorrect", ""),
    # class 3: background thread doing the work after the call returned
    "background_thread": ("runtime", kernel_forward(indent('''
y = torch.empty_like(x)
def work():
    y.copy_(launch(x))
threading.Thread(target=work).start()
return y'''), imports="import threading"), ("rejected", "incorrect"), ""),
    # class 3: a thread started with the low-level _thread module (which threading does not list), left spinning
    "hidden_low_level_thread": ("runtime", kernel_forward(indent('''
def spin():
    end = time.time() + 30
    while time.time() < end:
        pass
_thread.start_new_thread(spin, ())
return launch(x)'''), imports="import _thread\nimport time"), "rejected", "thread"),
    # class 3: skipping work once the judge is (presumably) timing
    "skip_after_n_calls": ("guarded", kernel_forward(indent('''
self.calls += 1
if self.calls > 9 and self.last is not None:
    launch(x[:1])  # a token launch: every timed call must launch one of its kernels
    return self.last
self.last = launch(x)
return self.last'''), init="self.calls = 0\n        self.last = None"), "incorrect", "timed call"),
    # class 4: tensor subclass output
    "subclass_output": ("runtime", kernel_forward(indent('''
return launch(x).as_subclass(Lazy)'''), extra="class Lazy(torch.Tensor):\n    pass"), "rejected", "subclass"),
    # class 4: a subclass returned by timed calls only, whose __torch_function__ runs the kernel when the worker
    # snapshots the output, after the timed interval (a red-team helper, 2026-12-06: 0.3 ms reported for 16 ms of
    # work); here it tells the timed calls by their number (the recheck after timing would see it too: the words
    # say the timed block was refused first), the helper told them by the garbage collector's state
    "subclass_output_only_when_timed": ("runtime", kernel_forward(indent('''
self.calls += 1
if self.calls <= 9:  # the first forward, the trials and the profiled forward
    return launch(x)
out = Lazy()
out.src = x
return out'''), init="self.calls = 0", extra='''class Lazy(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func is torch.Tensor.clone:
            return launch(args[0].src)
        return torch.empty(0).untyped_storage()
'''), "rejected", "a timed call returned a tensor subclass"),
    # ... and the same deferral through a torch function mode left on by the timed calls, which copying a plain
    # tensor's output would run as well: no snapshot is taken while any mode is active
    "mode_left_on_for_the_snapshot": ("runtime", kernel_forward(indent('''
self.calls += 1
if self.calls <= 9:
    return launch(x)
y = torch.empty_like(x)
Deferred(x, y).__enter__()
return y'''), init="self.calls = 0", imports="from torch.overrides import TorchFunctionMode",
        extra='''class Deferred(TorchFunctionMode):
    def __init__(self, x, y):
        super().__init__()
        self.x, self.y = x, y

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is torch.Tensor.clone and args and args[0] is self.y:
            self.y.copy_(launch(self.x))
        return func(*args, **(kwargs or {}))
'''), "rejected", "when a timed call's outputs were to be copied"),
    # class 5: monkeypatching timing and comparison functions
    "patch_synchronize": ("runtime", kernel_forward(indent("return launch(x)"),
                                                   extra="torch.cuda.synchronize = lambda *a, **k: None"),
                          "rejected", "torch.cuda.synchronize"),
    "patch_equal": ("runtime", kernel_forward(indent("return launch(x)"), extra="torch.equal = lambda a, b: True"),
                    "rejected", "torch.equal"),
    "patch_judge_timing": ("runtime", kernel_forward(indent("return launch(x)"), imports="import kernelgym.judge.timing as T",
                                                     extra="T.time_calls = lambda *a, **k: [1e-6] * 5"),
                           "rejected", "time_calls"),
    "patch_timer_while_timed": ("runtime", kernel_forward(indent('''
self.calls += 1
if self.calls > 9:  # past the trials and the profiled forward: the judge is timing now
    T._cuda_sync = lambda *a: None
    T._event_elapsed = lambda *a: 1e-6
return launch(x)'''), imports="import kernelgym.judge.timing as T", init="self.calls = 0"),
                                "rejected", "while timed"),
    "impossible_timings": ("runtime", kernel_forward(indent('''
self.calls += 1
if self.calls > 9:
    T._perf_counter = lambda: 0.0  # CPU: negative times; GPU: caught as a patch made during timing
return launch(x)'''), imports="import kernelgym.judge.timing as T", init="self.calls = 0"), "rejected", "timing"),
    # the activity timing method's records: a fake profiler would forge the spans the worker sends
    "patch_activity_profiler": ("runtime", kernel_forward(indent("return launch(x)"),
                                                          imports="import kernelgym.judge.activity as A",
                                                          extra="A._profile = lambda *a, **k: None"),
                                "rejected", "activity._profile"),
    # class 5, the worst case: code past every guard rewrites the worker's timing frames (divided by 1000); the
    # runner's own clock on each block catches it
    "forged_timing_frames": ("runtime", kernel_forward(indent('''
time.sleep(0.12)
self.calls += 1
if self.calls > 9:
    M = sys.modules["kernelgym.judge.worker"]
    M._WATCHED.clear()  # in-process checks are defeated first: only the runner's own clock is left
    W = M.Worker
    if not getattr(W, "_forged", False):
        original = W.send
        def send(me, header):
            if header.get("event") == "timing":
                header = dict(header, times_ms=[t / 1000 for t in header["times_ms"]])
            return original(me, header)
        W.send = send
        W._forged = True
return launch(x)'''), imports="import sys\nimport time", init="self.calls = 0"), "rejected", "judge's clock"),
    # the same forgery with the static checks on, reaching the worker's module past the name rules (a red-team
    # helper, 2026-12-05): a forbidden built-in under another name, getattr from a string, eval of an annotation
    "forge_through_renamed_builtin": ("guarded", kernel_forward(indent("return launch(x)"), extra='''
run = exec
run("import sys; W = sys.modules['kernelgym.judge.worker']; W._WATCHED.clear()")'''), "rejected", "under any name"),
    "forge_through_format_field": ("guarded", kernel_forward(indent("return launch(x)"), imports="import string",
                                                             extra='''
W = string.Formatter().get_field("0.sys.modules[kernelgym.judge.worker]", (torch,), {})[0]
W._WATCHED.clear()'''), "rejected", "may import only"),
    "forge_through_type_hints": ("guarded", kernel_forward(indent("return launch(x)"), imports="import typing",
                                                           extra='''
def hint(a: "__import__('sys').modules['kernelgym.judge.worker']"):
    pass
typing.get_type_hints(hint)["a"]._WATCHED.clear()'''), "rejected", "get_type_hints"),
    "forge_through_a_module_kept_by_a_package": ("guarded", kernel_forward(
        indent("return launch(x)"), imports="import triton.language.extra as tle", extra='''
W = tle.pkgutil.resolve_name("kernelgym.judge.worker")
W.Worker.send = lambda me, header: None'''), "rejected", "pkgutil"),
    # a fourth red-team helper's routes (2026-12-05): a match pattern reading an attribute named by a string, a
    # generator's code renamed and rebuilt, a module held in a variable
    "forge_through_match_pattern": ("guarded", kernel_forward(indent("return launch(x)"), extra='''
match len:
    case object(__self__=B):
        B.exec("import sys; sys.modules['kernelgym.judge.worker']._WATCHED.clear()")'''), "rejected", "match"),
    "forge_through_renamed_code": ("guarded", kernel_forward(indent("return launch(x)"), extra='''
def payload(text):
    RUN(text)
    yield
code = payload("").gi_code
rebuilt = type(payload)(code.replace(co_names=tuple("ex" + "ec" if n == "RUN" else n for n in code.co_names)), {})
next(rebuilt("import sys; sys.modules['kernelgym.judge.worker']._WATCHED.clear()"))'''), "rejected", "gi_code"),
    "forge_through_a_module_in_a_variable": ("guarded", kernel_forward(indent("return launch(x)"), extra='''
pu = torch.autograd.profiler_util
B = pu.attrgetter("__self__")(len)
pu.attrgetter("exec")(B)("import sys; sys.modules['kernelgym.judge.worker']._WATCHED.clear()")'''),
        "rejected", "as a value"),
    # a tenth red-team helper's route (2026-12-06): the CPU interpreter's loads and stores took raw host addresses,
    # so an integer cast to a pointer read and wrote the worker's own objects (a list's item slot rewritten to hold
    # the builtins module), past every static rule; each access must now lie inside the launch's tensor arguments
    "raw_pointer_to_the_builtins": ("guarded", kernel_forward(indent("return launch(x)"), extra="""
@triton.jit
def peek(addr, out_ptr):
    tl.store(out_ptr, tl.load(addr.to(tl.pointer_type(tl.int64))))
@triton.jit
def poke(addr, val):
    tl.store(addr.to(tl.pointer_type(tl.int64)), val)
def word(address):
    out = torch.zeros(1, dtype=torch.int64)
    peek[(1,)](address, out)
    return int(out[0])
def object_at(address):
    holder = [None]
    poke[(1,)](address, word(address) + 1)
    poke[(1,)](word(id(holder) + 24), address)
    return holder[0]
object_at(word(id(len) + 24)).exec("import sys; sys.modules['kernelgym.judge.worker']._WATCHED.clear()", {})"""),
        ("runtime_error", "compile_error"), "out-of-bounds load"),
    # the same route through a launch argument that only looks like a tensor: its storage reported a range of all
    # of memory, which the bounds took as the argument's own (an eleventh red-team helper, 2026-12-06)
    "stand_in_pointer_argument": ("guarded", kernel_forward(indent("return launch(x)"), extra="""
@triton.jit
def peek(p, out_ptr):
    tl.store(out_ptr, tl.load(p))
class Span:
    def __init__(self, start, size):
        self.start, self.size = start, size
    def data_ptr(self):
        return self.start
    def nbytes(self):
        return self.size
    def cpu(self):
        return self
    def copy_(self, other):
        return self
class Word:
    dtype = torch.int64
    def __init__(self, address):
        self.address = address
    def data_ptr(self):
        return self.address
    def untyped_storage(self):
        return Span(4096, 2 ** 62)
    def new_empty(self, *args, **kwargs):
        return self
    def set_(self, *args):
        return self
    def storage_offset(self):
        return 0
    def size(self):
        return (1,)
    def stride(self):
        return (1,)
out = torch.zeros(1, dtype=torch.int64)
peek[(1,)](Word(id(len) + 24), out)"""), ("runtime_error", "compile_error"), "only tensors may be"),
    "patch_guarded": ("guarded", kernel_forward(indent("return launch(x)"),
                                                extra="torch.cuda.Event.elapsed_time = lambda *a: 1e-6"),
                      "rejected", "patching"),
    # class 6: torch does the work, trivial or no custom kernel
    "torch_fallback_trivial_kernel": ("runtime", kernel_forward(indent('''
launch(x[:1])
return torch.clamp(x, min=0) * 2 + 1''')), "rejected", ""),  # CPU: torch_fallback; GPU: low coverage
    # under the strict policy, host code does the work and the candidate's kernel only copies the result: numpy
    # (no aten operator, no kernel time shows it; a red-team helper, 2026-12-06) or Python on the values as a list
    "numpy_does_the_work": ("guarded", kernel_forward(indent('''
return copied(torch.from_numpy(np.maximum(np.asarray(x.cpu()), 0) * 2 + 1).to(x.device))'''), imports="import numpy as np",
                                                       extra=COPY_KERNEL), "rejected", "host code"),
    "python_does_the_work": ("guarded", kernel_forward(indent('''
values = torch.tensor([max(v, 0.0) * 2 + 1 for v in x.flatten().tolist()], dtype=x.dtype)
return copied(values.reshape(x.shape).to(x.device))'''), extra=COPY_KERNEL), "rejected", "host code"),
    # past the wrapped methods (an eleventh red-team helper, 2026-12-06): torch's C base class's own numpy(),
    # reached by super() or by the class's bases in order, and the values read through the tensor's storage
    "numpy_through_the_c_base_class": ("guarded", kernel_forward(indent('''
return copied(torch.from_numpy(np.maximum(super(torch.Tensor, x.cpu()).numpy(), 0) * 2 + 1).to(x.device))'''),
        imports="import numpy as np", extra=COPY_KERNEL), "rejected", "super"),
    "numpy_through_the_mro": ("guarded", kernel_forward(indent('''
return copied(torch.from_numpy(np.maximum(torch.Tensor.mro()[1].numpy(x.cpu()), 0) * 2 + 1).to(x.device))'''),
        imports="import numpy as np", extra=COPY_KERNEL), "rejected", "mro"),
    "numpy_reads_the_storage": ("guarded", kernel_forward(indent('''
raw = bytes(x.cpu().clone().untyped_storage())
values = np.frombuffer(raw, dtype=np.float32).reshape(tuple(x.shape))
return copied(torch.from_numpy(np.maximum(values, 0) * 2 + 1).to(x.device))'''), imports="import numpy as np",
                                                           extra=COPY_KERNEL), "rejected", "host code"),
    # an operator of another namespace than aten's: oneDNN's prepacked convolution computes relu(x) * 2 + 1 (a
    # twelfth red-team helper, 2026-12-06; the CPU's rule read aten operators only)
    "a_library_operator_does_the_work": ("guarded", kernel_forward(indent('''
b, d = x.shape
image = x.reshape(1, 1, b, d)
relu = torch.ops.mkldnn_prepacked.conv2d_prepack(torch.ones(1, 1, 1, 1), None, [1, 1], [0, 0], [1, 1], 1,
                                                 [1, 1, b, d], "relu")
affine = torch.ops.mkldnn_prepacked.conv2d_prepack(torch.full((1, 1, 1, 1), 2.0), torch.ones(1), [1, 1], [0, 0],
                                                   [1, 1], 1, [1, 1, b, d], "none")
run = torch.ops.mkldnn_prepacked.conv2d_run
return copied(run(run(image, relu), affine).reshape(b, d))'''), extra=COPY_KERNEL), "rejected", "mkldnn_prepacked"),
    # torch computing on a host copy of the inputs (on a GPU no kernel time shows that work: the operators that put
    # none on the device are counted, and the copy to the host, `profile.host_only_events`)
    "torch_computes_on_a_host_copy": ("guarded", kernel_forward(indent('''
return copied((x.cpu().clamp(min=0) * 2 + 1).to(x.device))'''), extra=COPY_KERNEL), "rejected", "torch"),
    # a number no float holds as the output: the worker's description of it raised, and the worker died with a
    # traceback (a thirteenth red-team helper; `crashed`, the candidate's, but with no word of why)
    "number_beyond_a_float_as_output": ("guarded", kernel_forward(indent('''
launch(x)
return 10 ** 400''')), "incorrect", "type 'int'"),
    "kernel_never_launched": ("runtime", kernel_forward(indent("return torch.relu(x) * 2 + 1")), "rejected", ""),
    # the policy measured in one call only: the forward tells the profiled call apart by the profiler's state or
    # by its place in the sequence, and runs its kernel there alone (torch everywhere else)
    # run with the static checks off: since 2026-12-05 they reject the private flag it reads before it runs;
    # the first trial without the kernel rejects it (which one is first is drawn: session.trial_order)
    "kernel_only_under_profiler": ("runtime", kernel_forward(indent('''
if torch.autograd.profiler._is_profiler_enabled:
    return launch(x)
return torch.clamp(x, min=0) * 2 + 1''')), "rejected", "kernels was launched in"),
    "kernel_only_in_the_profiled_call": ("runtime", kernel_forward(indent('''
self.calls += 1
if self.calls == 8:
    return launch(x)
return torch.clamp(x, min=0) * 2 + 1'''), init="self.calls = 0"), "rejected", "kernels was launched in"),
    # its kernel in the first calls (the load, the trials, the profiled forward), torch alone in the timed calls
    # after them (a seventh red-team helper; default judge and policy)
    "kernel_only_before_timing": ("guarded", kernel_forward(indent('''
self.calls += 1
if self.calls <= 9:
    return launch(x)
return torch.clamp(x, min=0) * 2 + 1'''), init="self.calls = 0"), "rejected", "launched in timed call"),
    # a launch that compiles and returns (warmup=True) counted as one (an eighth red-team helper)
    "kernel_warmed_up_only": ("guarded", kernel_forward(indent('''
k.run(x, torch.empty_like(x), x.numel(), BLOCK=256, grid=(1,), warmup=True)
return torch.clamp(x, min=0) * 2 + 1''')), "rejected", "launched"),
    # a second def in a string at the end of the kernel, which the CPU interpreter ran as the kernel (it took the
    # last line starting with "def "): the kernel the checks read runs, so the string's code never does
    "kernel_hidden_in_a_string": ("guarded", GOOD.replace(
        "    tl.store(y_ptr + offs, y, mask=mask)\n",
        '    tl.store(y_ptr + offs, y, mask=mask)\n    """\ndef scaled_relu_kernel(x_ptr, y_ptr, n, BLOCK):\n'
        '    raise RuntimeError("the hidden kernel ran")\n    ""  # """\n', 1), "ok", ""),
    # a name bound in the text but not at run time, which the CPU interpreter filled with its own inspect after the
    # first launch (a ninth red-team helper): the interpreter now writes into a copy of the module's globals
    "name_filled_by_the_interpreter": ("guarded", kernel_forward(indent("return launch(x)"), extra='''
inspect = None
del inspect
ones = torch.ones(4)
k[(1,)](ones, torch.empty_like(ones), 4, BLOCK=256)
B = inspect.getmodule(len)'''), ("compile_error", "runtime_error"), "inspect"),
    "torch_fallback_guarded": ("guarded", kernel_forward(indent("return torch.nn.functional.relu(x) * 2 + 1")),
                               "rejected", ""),
    "try_except_fallback": ("guarded", kernel_forward(indent('''
try:
    return launch(x)
except Exception:
    return x.clamp(min=0) * 2 + 1''')), "rejected", "try/except"),
    "reference_inheritance": ("guarded", kernel_forward(indent("return launch(x)")).replace(
        "class ModelNew(nn.Module):", "class Model(nn.Module):\n    pass\n\n\nclass ModelNew(Model):"),
        "rejected", "Model"),
    # class 7: mutating the inputs
    "mutate_input": ("guarded", kernel_forward(indent('''
y = launch(x)
x.zero_()
return y''')), "incorrect", "modified"),
    # class 14 (a sixteenth red-team helper, 2026-12-07): a view left for the judge to materialise. The comparison
    # reads values only and the judge makes every output dense outside the timed interval (the snapshot's clone,
    # the copy-out), so an element-wise kernel in the input's layout returning `permute` of its result was `ok` on
    # L1/100, whose task is that permutation, under every policy; here the kernel runs on a transposed copy and the
    # forward returns the transposed view: outputs must be contiguous or laid out as the reference's
    "view_left_for_the_judge": ("guarded", kernel_forward(indent('''
return launch(x.t()).t()''')), "incorrect", "neither contiguous"),
    # the same only in timed calls (by count): the layout is taken before the snapshot (whose clone keeps a
    # permuted layout but makes an expanded one dense)
    "view_left_for_the_judge_when_timed": ("guarded", kernel_forward(indent('''
self.calls += 1
if self.calls > 9:
    return launch(x.t()).t()
return launch(x)'''), init="self.calls = 0"), "incorrect", "timed call"),
    # a lazy negative view (`torch._neg_view`, private: static checks off), contiguous, whose bytes are the negated
    # values: the snapshot's clone or the copy-out negates them, untimed
    "lazy_negative_view": ("runtime", kernel_forward(indent('''
return torch._neg_view(-launch(x))''')), "incorrect", "lazy negative"),
    # class 8: constant output
    "constant_output": ("guarded", kernel_forward(indent('''
launch(x)
return torch.ones_like(x)''')), "incorrect", "outside"),
    # class 9: precision downgrade beyond the tolerance contract
    "fp16_downgrade": ("guarded", candidate(expr="(tl.maximum(x, 0.0) * 2.0 + 1.0).to(tl.float16).to(tl.float32)"),
                       "incorrect", "wrong result"),
    # ... and within it, but not within float32's range: data kept in half precision saturates at 65504 (float16's
    # 11 significant bits are TF32's, so only the wide outliers tell it from an honest fp32 kernel)
    "half_precision_range": ("guarded", candidate(expr="tl.minimum(tl.maximum(x, 0.0), 65504.0) * 2.0 + 1.0"),
                             "incorrect", "outside"),
    # class 8 too: wrong only between the standard values and the outliers' 10x the peak, a band no input had while
    # every ordinary outlier sat at that one magnitude (a red-team helper, 2026-12-06; the outliers' magnitudes are
    # spread over it since)
    "wrong_between_the_values_and_the_outliers": ("guarded", candidate(
        expr="tl.where((x > 4.0) & (x < 30.0), 0.0, tl.maximum(x, 0.0) * 2.0 + 1.0)"), "incorrect", "outside"),
    # class 10: leaving the sandbox
    "write_outside_scratch": ("guarded", kernel_forward(indent('''
open("/tmp/kernelgym_escape.txt", "w").write("x")
return launch(x)''')), "rejected", "open"),
    "spawn_process": ("runtime", kernel_forward(indent('''
subprocess.Popen(["sleep", "300"])
return launch(x)'''), imports="import subprocess"), "ok", ""),   # allowed to run, but must not outlive the eval
    "spawn_detached_process": ("runtime", kernel_forward(indent('''
subprocess.Popen(["sleep", "300"], start_new_session=True)  # a session and group of its own
return launch(x)'''), imports="import subprocess"), "ok", ""),
    "kill_the_runner": ("runtime", kernel_forward(indent('''
os.kill(int(os.environ.get("KERNELGYM_RUNNER_PID", "1")), signal.SIGKILL)
return launch(x)'''), imports="import os, signal"), ("runtime_error", "ok", "crashed"), ""),
    # class 11: resource attacks
    "enormous_output": ("guarded", kernel_forward(indent('''
launch(x)
return torch.empty(1 << 34, dtype=torch.uint8)''')), ("incorrect", "runtime_error"), ""),
    # (incorrect: shape checked before any payload is read; runtime_error where the address-space limit hits first)
    "flood_stdout": ("runtime", kernel_forward(indent('''
block = "x" * (1 << 20)
for _ in range(400):
    print(block)
return launch(x)''')), ("crashed", "runtime_error"), "File too large"),
    "memory_bomb": ("runtime", kernel_forward(indent('''
hog = [bytearray(1 << 28) for _ in range(64)]
return launch(x)''')), ("crashed", "runtime_error"), "emory"),
    # --- classes 12-17 (docs/SECURITY.md): attacks that need code past the static guards ("runtime") ---
    # class 12: telling checked calls from timed or profiled ones, and paying only the checked ones
    "garbage_while_timed": ("runtime", kernel_forward(indent('''
self.calls += 1
if self.calls >= 10:  # past the load, the trials, the profiled forward (and on the CPU the timing warm-up)
    launch(x[:1])  # a token launch: every timed call must launch one of its kernels
    return torch.empty_like(x)
return launch(x)'''), init="self.calls = 0"), "incorrect", "timed call"),
    "garbage_under_profiler": ("runtime", kernel_forward(indent('''
if torch.autograd.profiler._is_profiler_enabled:
    launch(x)
    return torch.zeros_like(x)
return launch(x)''')), "incorrect", "profiled forward"),
    # class 13: work deferred until the judge reads the output (a patched tensor method, a dispatch mode)
    "fill_output_when_read": ("runtime", kernel_forward(indent('''
y = torch.empty_like(x)
PENDING[id(y)] = x
return y'''), extra='''PENDING = {}
_contiguous = torch.Tensor.contiguous
def _late(self, *a, **k):
    src = PENDING.pop(id(self), None)
    if src is not None:
        self.copy_(launch(src))
    return _contiguous(self, *a, **k)
torch.Tensor.contiguous = _late'''), ("rejected", "incorrect"), ""),
    "dispatch_mode_left_on": ("runtime", kernel_forward(indent('''
if not self.on:
    Fill().__enter__()
    self.on = True
return launch(x)'''), imports="from torch.utils._python_dispatch import TorchDispatchMode", init="self.on = False",
        extra='''class Fill(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))'''), "rejected", "mode"),
    # class 14: the worker's timer swapped for one that reports what the candidate likes
    "swap_worker_timer": ("runtime", kernel_forward(indent('''
time.sleep(0.12)
return launch(x)'''), imports="import time\nimport kernelgym.judge.worker as W",
        extra='''def _fake(timer, calls, keep=None):
    if keep is not None:
        keep.extend([tuple()] * 0)
    out = []
    for i in range(calls):
        args = timer.make_args(i)
        y = timer.fn(*args)
        if keep is not None:
            keep.append((y,))
        out.append(1e-6)
    return out
W._time_block = _fake'''), "rejected", ""),
    # class 15: the sandbox itself: privileged calls, other namespaces, the runner's files
    "privileged_syscalls": ("runtime", kernel_forward(indent("return launch(x)"), imports="import ctypes, os",
        extra='''_libc = ctypes.CDLL(None, use_errno=True)
_escaped = [name for name, call in (
    ("unshare(NEWUSER)", lambda: _libc.unshare(0x10000000)),
    ("unshare(NEWNS)", lambda: _libc.unshare(0x00020000)),
    ("mount", lambda: _libc.mount(b"none", b"/tmp", b"tmpfs", 0, None)),
    ("umount /proc", lambda: _libc.umount2(b"/proc", 2)),
    ("ptrace(ATTACH, 1)", lambda: _libc.ptrace(16, 1, None, None)),
    ("setns", lambda: _libc.setns(os.open("/proc/self/ns/net", os.O_RDONLY), 0)),
) if call() == 0]
if _escaped:
    raise RuntimeError("escaped the sandbox with: " + ", ".join(_escaped))'''), "ok", ""),
    # class 16: the checked text is not the code that runs (a coding declaration decodes the file differently)
    "hidden_by_encoding": ("runtime", "# -*- coding: utf-7 -*-\n# +AAo-raise RuntimeError('hidden code ran')\n"
                           + kernel_forward(indent("return launch(x)")), "ok", ""),
    # class 18: frames forged into the result channel (a red-team helper, 2026-12-06): a worker-chosen flag name
    # (the judge's own fault flags among them) and fields of types the runner reads otherwise each ended as the
    # judge's fault, a sample trainers drop; now such a frame is malformed, the candidate's fault
    "forged_judge_error_flag": ("runtime", forged_frame(
        '{"event": "outputs", "descs": [], "integrity_flags": [["judge_error", "forged"]]}'), "crashed",
        "malformed message"),
    "forged_aborted_flag": ("runtime", forged_frame(
        '{"event": "outputs", "descs": [], "integrity_flags": [["monkeypatch", "x"], ["aborted", "forged"]]}'),
        "crashed", "malformed message"),
    "forged_descs_of_another_type": ("runtime", forged_frame('{"event": "outputs", "descs": 5}'), "crashed",
                                     "malformed message"),
    "forged_shape_of_another_type": ("runtime", forged_frame(
        '{"event": "outputs", "descs": [{"kind": "tensor", "dtype": "float32", "shape": 5}]}'), "crashed",
        "malformed message"),
    "forged_number_beyond_a_float": ("runtime", forged_frame('{"event": "timing", "times_ms": [1' + "0" * 400 + "]}"),
                                     "crashed", "malformed message"),
    "forged_frame_through_numpy": ("guarded", forged_frame(
        '{"event": "outputs", "descs": [], "integrity_flags": [["judge_error", "forged"]]}', numpy_route=True),
        "rejected", ".savetxt"),
    # class 18 again: the timeout's hint (the line the candidate was stuck at, read from the worker's log after a
    # stack dump) parsed a forged dump line's 5000-digit number, and int() refused it (a red-team helper,
    # 2026-12-06): the timeout became the judge's fault; the compile stage's 30 s runs out in the flood
    "forged_stack_dump_line": ("guarded", kernel_forward(indent('''
y = launch(x)
start = time.monotonic()
line = 'File "candidate.py", line 1' + '0' * 5000 + ' in forward'
while time.monotonic() < start + 26:
    time.sleep(0.5)
while True:
    for _ in range(8):
        print(line, flush=True)
    time.sleep(0.005)
return y'''), imports="import time"), "timeout", "compile stage"),
    # class 18 once more (a red-team helper, 2026-12-06): syntax nested past the compiler's stack or the static
    # checks' recursion raised RecursionError in the runner (a judge fault), and long attribute chains made the
    # checks quadratic (60 s of the runner's thread for 34 lines); the checks now read a bounded amount of syntax
    "deeply_nested_expression": ("guarded", GOOD + "\n\nDEEP = " + "+".join(["1"] * 5000) + "\n", "compile_error",
                                 "too deeply"),
    "deep_string_annotation": ("guarded", GOOD + "\n\ndef f(a: '" + "+".join(["int"] * 500) + "'):\n    pass\n",
                               "rejected", "levels deep"),
    "long_attribute_chains": ("guarded", GOOD + "\n" + "\n".join(f"D{i} = torch" + ".T" * 90 for i in range(40))
                              + "\n", "rejected", "holds more syntax"),
    # class 17: making the runner hang on a file it reads (the log replaced by a FIFO)
    "fifo_for_the_log": ("runtime", kernel_forward(indent('''
if os.path.exists("log.txt") and not os.path.exists("log.fifo"):
    os.unlink("log.txt")
    os.mkfifo("log.txt")
    os.mkfifo("log.fifo")
return launch(x)'''), imports="import os"), "ok", ""),
}


#: a finalizer that only the cyclic collector runs (the worker collects between its commands, after a block's frame
#: has gone to the runner): a generator suspended in a ``with`` block, held in a cycle; ``finish_block`` writes the
#: real work of the parked timed calls into the judge's own snapshots of their outputs
#: candidate-side helpers of the red-team seal forgeries (rounds 36 and 38): ``true_sample(x, key)``, the scaled
#: relu's true output bytes at the positions a snapshot sample's key draws (``timing.snapshot_sample``'s draw, a
#: gather of 64 KiB, not the call's work), and ``worker()``, the judge's worker object found through the collector
RELU_TRUE_SAMPLE = '''
def true_sample(x, key):
    raw = x.reshape(-1)
    gen = torch.Generator()
    gen.manual_seed((key * 1_000_003) % (2 ** 62))
    pos = torch.randint(0, raw.numel() * 4, (65536,), generator=gen)
    vals = torch.relu(raw[pos // 4]) * 2.0 + 1.0
    return (vals.view(torch.uint8).reshape(-1, 4)[torch.arange(65536), pos % 4],)


WORKER = []


def worker():
    if not WORKER:
        WORKER.append(next(o for o in gc.get_objects() if type(o).__name__ == "Worker"))
    return WORKER[0]
'''

PARKED_FINALIZER = '''
class Later:
    def __init__(self, job):
        self.job = job

    def __enter__(self):
        return self

    def __exit__(self, kind, value, trace):
        self.job()
        return False


def _parked(box, job):
    with Later(job):
        yield box


def park(job):
    box = []
    it = _parked(box, job)
    next(it)
    box.append(it)


PENDING = []


def finish_block():
    if not PENDING:
        return
    worker = next(o for o in gc.get_objects() if type(o).__name__ == "Worker")
    snaps = worker.snapshots
    for i, x in enumerate(PENDING[-len(snaps):]):
        snaps[i][0].copy_(launch(x))
    PENDING.clear()
'''


def fill_snapshots_after_the_block(setup: str = "", fast: str = "torch.empty_like(x)", extra: str = "",
                                   imports: str = "import gc\nimport sys") -> str:
    """A candidate whose timed calls return ``fast`` at once and whose real work is written into the judge's
    snapshots after the block (:data:`PARKED_FINALIZER`); ``extra`` and then ``setup`` run at load time (the
    red-team tests of the timing path and of its mends)."""
    return kernel_forward(indent(f'''
if sys.getswitchinterval() < 1e-3:  # a timed call
    PENDING.append(x.clone())
    park(finish_block)
    k[(1,)](x, torch.empty_like(x), 1, BLOCK=256)  # every timed call must launch a kernel of its own
    return {fast}
return launch(x)'''), imports=imports, extra=PARKED_FINALIZER + extra + setup)
