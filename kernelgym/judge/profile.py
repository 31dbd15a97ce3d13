"""Kernel coverage: which kernels ran during one forward, and how much of the device time was the candidate's.

Runs in the worker (after timing) with ``torch.profiler``. A candidate's kernels are its ``@triton.jit`` functions
and its ``__global__`` CUDA functions, found by name in its source. On a GPU, coverage is the candidate kernels'
share of all kernel time in the forward. On the CPU (Triton interpreter) there are no device kernels: the report
lists launches of the candidate's Triton kernels (counted by wrapping the interpreter's launcher) and the aten
compute operators that ran, so a torch fallback is still visible.
"""

from __future__ import annotations

import ast
import re
import secrets

#: aten operators that do the main work of typical tasks; seeing one in a candidate's forward means torch did work.
ATEN_COMPUTE = re.compile(r"^aten::(mm|bmm|addmm|matmul|baddbmm|addbmm|linear|einsum|convolution|_convolution|"
                          r"conv\w*|cudnn_\w+|_softmax|_log_softmax|softmax|native_layer_norm|native_group_norm|"
                          r"native_batch_norm|_batch_norm\w*|max_pool\w*|avg_pool\w*|adaptive_\w+|cumsum|cumprod|"
                          r"topk|sort|_scaled_dot_product\w*|lstm|gru|rnn_\w+|embedding\w*|index_select|gather|"
                          r"scatter\w*|mse_loss|nll_loss\w*|cross_entropy\w*|kl_div|smooth_l1_loss|l1_loss|"
                          r"binary_cross_entropy\w*|upsample\w*|grid_sampler\w*|_fft\w*|linalg_\w+|cholesky\w*|"
                          r"triangular_solve)$")
#: aten operators that only allocate, fill with constants, view or move data: on the CPU (no device timeline) every
#: other aten operator seen in the forward means torch computed values. An allowlist: a denylist of compute
#: operators missed ``addmv`` (a red-team helper, 2026-12-06). Reading a value out to Python
#: (``_local_scalar_dense``: ``float(t)``, ``t.item()``, iteration) is not on it: Python arithmetic on the values is
#: compute outside the candidate's kernels too.
ATEN_DATA_MOVEMENT = re.compile(r"^aten::(empty\w*|new_empty\w*|zeros\w*|new_zeros|ones\w*|new_ones|full\w*|"
                                r"new_full|fill_|zero_|arange|copy_|_copy_from\w*|_to_copy|to|clone|contiguous|"
                                r"view\w*|_unsafe_view|reshape|_reshape_alias|as_strided\w*|t|transpose_?|permute|"
                                r"expand\w*|squeeze_?|unsqueeze_?|flatten|unflatten|select|slice|narrow\w*|split\w*|"
                                r"chunk|unbind|detach_?|alias|lift_fresh\w*|lift|resolve_conj|resolve_neg|set_|"
                                r"resize_\w*|cat|_cat|stack|movedim|moveaxis|swapaxes|swapdims|unfold|"
                                r"is_nonzero|result_type|dim|size|stride|numel|is_contiguous)$")
#: an operator of torch's dispatcher, in any namespace (``aten::``, ``mkldnn_prepacked::``, ``quantized::``, a
#: library's): on the CPU every one but the data movement above counts as torch compute; an aten-only rule let
#: oneDNN's ``mkldnn_prepacked::conv2d_run`` do a convolution, a matmul or a relu (a twelfth red-team helper)
DISPATCHER_OP = re.compile(r"^\w+::\w")
#: the CUDA runtime and driver calls that put work on a device (a kernel, a copy, a fill, a graph)
DEVICE_WORK_CALL = re.compile(r"^cu(da)?(LaunchKernel\w*|LaunchCooperativeKernel\w*|Memcpy\w*|Memset\w*|"
                              r"GraphLaunch\w*)$")
#: a device activity that copied device memory to the host (CUPTI's name for it, whoever asked for the copy)
DEVICE_TO_HOST_COPY = re.compile(r"^Memcpy DtoH\b")
_CUDA_GLOBAL = re.compile(r"__global__\s+(?:void\s+)?(?:__launch_bounds__\s*\([^)]*\)\s*)?(?:void\s+)?(\w+)\s*\(")


def candidate_kernel_names(source: str) -> list[str]:
    """Names of the ``@triton.jit`` functions and ``__global__`` CUDA kernels defined in ``source``."""
    names: list[str] = []
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return names
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for dec in node.decorator_list:
                text = ast.unparse(dec)
                if "jit" in text or "autotune" in text or "heuristics" in text:
                    names.append(node.name)
                    break
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "__global__" in node.value:
            names.extend(_CUDA_GLOBAL.findall(node.value))
    return sorted(set(names))


#: kernel names that are library kernels' (cuBLAS, cuDNN, CUTLASS): a candidate's kernel named so would claim
#: their GPU time as its own
LIBRARY_KERNEL_NAME = re.compile(r"^(nvjet|sm\d+_|cutlass|cublas|cudnn|xmma|ampere_|hopper_|volta_|turing_)",
                                 re.IGNORECASE)


def _matches(event_name: str, names: list[str]) -> bool:
    """Whether the GPU kernel ``event_name`` is one of the candidate's kernels ``names``: the name itself (a Triton
    kernel), or a CUDA kernel's demangled signature that starts with it (``relu_kernel(float const*, ...)``,
    ``void relu_kernel<float>(...)``, ``ns::relu_kernel(...)`` in a namespace of the candidate's, not a library's).
    A name anywhere else in the text does not count: a kernel named ``native`` or ``cutlass`` matched every
    ``at::native::...`` and CUTLASS kernel as a word (a seventh red-team helper); nor does a name shaped like a
    library kernel's (:data:`LIBRARY_KERNEL_NAME`)."""
    return any(not LIBRARY_KERNEL_NAME.match(n) and re.match(
        rf"(?:void\s+)?{_OWN_NAMESPACES}{re.escape(n)}(?=[(<]|$)", event_name) for n in names)


#: namespace qualifiers a candidate's CUDA kernel may carry: any but the libraries' own
_OWN_NAMESPACES = (r"(?:(?:\(anonymous namespace\)|(?!(?:at|c10|caffe2|cutlass|cute|cub|thrust|torch|std|cudnn|"
                   r"cublas|cublasLt|flash|triton|nvjet)::)[A-Za-z_]\w*)::)*")


def coverage_from_events(events, names: list[str], strict_aten: bool = False) -> dict:
    """Summarise profiler events: kernel times by ownership, aten compute ops seen. Pure function of the events.

    ``events`` are ``(name, is_device_kernel, device_us)`` tuples, or ``(name, is_device_kernel, device_us,
    on_host)`` where ``on_host`` marks an operator that put no work on a device (:func:`host_only_events`), or
    ``(..., on_host, exempt)`` where ``exempt`` marks an operator inside a range of :class:`HostReads`'s trusted
    ones (a factory call or host read it let through): one of :data:`EXEMPT_OPS` there is no torch compute. With
    ``strict_aten`` (CPU mode) every dispatcher operator (:data:`DISPATCHER_OP`, any namespace) but those of
    :data:`ATEN_DATA_MOVEMENT` counts as torch compute; without (a GPU, where torch's work shows as other kernels'
    time) those of :data:`ATEN_COMPUTE`, and every other such operator that ran ``on_host``: torch computing on host
    copies of the data, which no kernel time shows. ``host_copies`` counts the device activities that copied device
    memory to the host (:data:`DEVICE_TO_HOST_COPY`).
    """
    total = mine = 0.0
    kernels: dict[str, float] = {}
    foreign: dict[str, float] = {}
    aten: set[str] = set()
    host_copies = 0
    for name, is_kernel, dev_us, *rest in events:
        on_host, exempt = rest[:1], len(rest) > 1 and rest[1] is True
        if is_kernel:
            total += dev_us
            kernels[name] = kernels.get(name, 0.0) + dev_us
            host_copies += bool(DEVICE_TO_HOST_COPY.match(name))
            if _matches(name, names):
                mine += dev_us
            else:
                foreign[name] = foreign.get(name, 0.0) + dev_us
        elif exempt and EXEMPT_OPS.match(name):
            continue
        elif ATEN_COMPUTE.match(name) or ((strict_aten or any(on_host)) and DISPATCHER_OP.match(name)
                                          and not ATEN_DATA_MOVEMENT.match(name)):
            aten.add(name)
    top_foreign = sorted(foreign.items(), key=lambda kv: -kv[1])[:5]
    return {"kernel_us_total": total, "kernel_us_candidate": mine, "top_kernels": top_kernels(kernels, names),
            "coverage": (mine / total) if total > 0 else None,
            "launched": sorted(n for n in names if any(_matches(k, [n]) for k in kernels)),
            "foreign_kernels": [{"name": n[:120], "us": round(us, 2)} for n, us in top_foreign],
            "aten_compute_ops": sorted(aten), "host_copies": host_copies}


#: kernels listed in the profiling feedback, per side
TOP_KERNELS = 5


def top_kernels(kernel_us: dict, names: list[str]) -> list[dict]:
    """The :data:`TOP_KERNELS` kernels with the most device time: name (cut to 120 characters), total µs, share of
    all kernel time in the forward, and whether it is one of the candidate's (``names``)."""
    total = sum(kernel_us.values())
    ranked = sorted(kernel_us.items(), key=lambda kv: -kv[1])[:TOP_KERNELS]
    return [{"name": n[:120], "us": round(us, 2), "share": round(us / total, 4) if total > 0 else None,
             "own": _matches(n, names)} for n, us in ranked]


def profiler(device: str):
    """A profiler context for ``device``, whose events :func:`events_of` gives: ``torch.profiler.profile`` (CPU and
    CUDA activities) on a GPU; on the CPU the autograd profiler that it wraps, used directly, because
    ``torch.profiler.profile`` first reads an inductor setting (``hasattr(torch, "_inductor")``), which imports
    ``torch._inductor`` and ``torch._dynamo``: about a second, 40% of a fresh CPU worker's start-up."""
    if device.startswith("cuda"):
        from torch.profiler import ProfilerActivity, profile

        return profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
    from torch.autograd.profiler import profile

    # shapes and allocations: what torch's value copies wrote (:func:`torch_copied_bytes`)
    return profile(use_cpu=True, use_kineto=True, record_shapes=True, profile_memory=True)


def events_of(prof) -> list:
    """The function events of a finished :func:`profiler`."""
    return prof.events() if callable(getattr(prof, "events", None)) else prof.function_events


def profile_forward(model, inputs, device: str, names: list[str], launches=None, reads=None) -> tuple[dict, object]:
    """Profile one forward call; its summary (:func:`coverage_from_events`) and its output, which the judge
    compares like any trial's (a candidate that behaves differently under the profiler gains nothing).
    ``launches``, the worker's :class:`LaunchCounter`, says how many bytes the interpreter's own copies of its
    kernels' arguments wrote in the forward (:func:`torch_copied_bytes`); ``reads``, the worker's
    :class:`HostReads` (armed by its ``begin``), which ranges hold the factory calls and reads it let through."""
    import torch

    allowed = launches.interpreter_copy_bytes if launches is not None else 0
    with profiler(device) as prof:
        with torch.no_grad():
            output = model(*inputs)
        if device.startswith("cuda"):
            torch.cuda.synchronize()
    events = events_of(prof)
    on_host = host_only_events(events) if device.startswith("cuda") else set()
    exempt = within_trusted(events, set(reads.trusted)) if reads is not None else set()
    rows = []
    for e in events:
        is_kernel = str(getattr(e, "device_type", "")).endswith("CUDA")
        dev_us = float(e.time_range.elapsed_us()) if is_kernel else 0.0
        rows.append((e.name, is_kernel, dev_us, id(e) in on_host, id(e) in exempt))
    report = coverage_from_events(rows, names, strict_aten=not device.startswith("cuda"))
    if not device.startswith("cuda"):
        outs = output if isinstance(output, (tuple, list)) else (output,)
        interpreter = launches.interpreter_copy_bytes - allowed if launches is not None else 0
        report["torch_copied_bytes"] = torch_copied_bytes(events, interpreter)
        report["output_bytes"] = sum(int(o.numel()) * int(o.element_size()) for o in outs if torch.is_tensor(o))
    return report, output


#: the data-movement operators that write values into memory (every copying one ends in them: ``clone``,
#: ``contiguous``, a copying ``reshape``, ``to``, ``expand_copy``, ``as_strided_scatter`` in ``copy_``; ``stack`` in
#: ``cat``, or ``_stack`` of its own; ``narrow_copy`` copies with a kernel of its own, and was not counted: a
#: twenty-first red-team helper)
ATEN_VALUE_COPY = re.compile(r"^aten::(copy_|_copy_from\w*|cat|_cat|_stack|narrow_copy)$")
#: the share of a forward's output bytes that torch's value copies may write under ``strict`` on the CPU (the GPU's
#: kernel-time share, :data:`kernelgym.judge.policy` coverage, counts their kernels against the candidate's)
TORCH_COPY_SHARE = 0.5
_ITEM_BYTES = {"double": 8, "long int": 8, "long": 8, "c10::complex<double>": 16, "c10::complex<float>": 8,
               "float": 4, "int": 4, "unsigned int": 4, "c10::Half": 2, "c10::BFloat16": 2, "short int": 2,
               "short": 2, "unsigned short": 2, "bool": 1, "signed char": 1, "unsigned char": 1,
               "c10::Float8_e4m3fn": 1, "c10::Float8_e5m2": 1}


#: the profiler range around each launch of the interpreter (:class:`LaunchCounter`): events in it are the
#: interpreter's (its copies of a kernel's arguments to and from the host), not the forward's. Not a dispatcher
#: operator's name (:data:`DISPATCHER_OP`), and drawn per process so that a forward cannot name a range of its own so
LAUNCH_RANGE = f"kernelgym_interpreter_launch_{secrets.token_hex(8)}"
_record_function = None
_storage_functions: tuple = ()


def _within_launches(events) -> set[int]:
    """The ``id()`` of every event nested in a :data:`LAUNCH_RANGE` range (the range's own included)."""
    inside: set[int] = set()
    pending = [e for e in events if getattr(e, "name", None) == LAUNCH_RANGE]
    while pending:
        event = pending.pop()
        if id(event) not in inside:
            inside.add(id(event))
            pending.extend(getattr(event, "cpu_children", None) or [])
    return inside


def torch_copied_bytes(events, interpreter_bytes: int = 0) -> int:
    """Bytes that torch's value copies (:data:`ATEN_VALUE_COPY`) wrote in a CPU profile recorded with shapes and
    memory: a ``copy_``'s destination, a ``cat``'s ``out`` or, without one, what it allocated. On the CPU no kernel
    time shows torch's data movement, so a forward that let torch do a data-movement task (nearest upsampling as
    ``expand`` then ``reshape``, a pixel shuffle, ``stack`` of the input with itself) beside a token kernel launch
    was ``ok`` under ``strict`` (a twentieth red-team helper): each operator is data movement, but together they
    were the task's whole work. The interpreter's own copies of a kernel's arguments (inside a launch,
    :data:`LAUNCH_RANGE`) are left out, up to ``interpreter_bytes``: what the launches' tensor arguments' storages
    hold, each copied back once per launch (:meth:`LaunchCounter.install`). A range's name is no proof: a forward
    that read the name from the worker's memory (``kernelgym.judge.profile.LAUNCH_RANGE``) and opened a range of its
    own, or ran torch's copies inside a real launch (an argument whose ``untyped_storage`` did the task), had them
    left out, ``ok`` under ``strict`` (a twenty-first red-team helper)."""
    total = inside = 0
    launches = _within_launches(events)
    for e in events:
        if not ATEN_VALUE_COPY.match(getattr(e, "name", "") or ""):
            continue
        written = _copy_bytes(e)
        total += written
        if id(e) in launches:
            inside += written
    return total - min(inside, max(0, int(interpreter_bytes)))


def _copy_bytes(e) -> int:
    """The bytes one value copy's event (:data:`ATEN_VALUE_COPY`) wrote."""
    shapes = list(getattr(e, "input_shapes", None) or [])
    dtypes = list(getattr(e, "input_dtypes", None) or [])
    if e.name in ("aten::copy_",) or e.name.startswith("aten::_copy_from"):
        at = 0 if shapes and shapes[0] else None
    else:  # a tensor list's shapes are not recorded: the out tensor's, where one is given, is the last
        at = next((i for i in range(len(shapes) - 1, 0, -1) if shapes[i]), None)
    if at is None:
        return max(0, int(getattr(e, "self_cpu_memory_usage", 0) or 0))
    numel = 1
    for n in shapes[at]:
        numel *= int(n)
    return numel * _ITEM_BYTES.get(str(dtypes[at]) if at < len(dtypes) else "", 4)


def _argument_storage_bytes(args, kwargs) -> int:
    """Bytes of the distinct storages of the plain tensors and parameters among a launch's arguments (in tuples
    too): what the interpreter copies back after running the kernel (``InterpretedFunction._restore_args_dev``).
    Anything else with a ``data_ptr`` (a tensor subclass, an object of the forward's) is allowed nothing."""
    tensors, untyped_storage, storage_ptr, storage_nbytes = _storage_functions  # bound at install
    seen: dict[int, int] = {}
    pending = list(args) + list(kwargs.values())
    while pending:
        arg = pending.pop()
        if type(arg) is tuple:
            pending.extend(arg)
        elif type(arg) in tensors:  # a plain tensor or a parameter (a model's weight passed as it is)
            storage = untyped_storage(arg)
            seen[storage_ptr(storage)] = storage_nbytes(storage)
    return sum(seen.values())


def host_only_events(events) -> set[int]:
    """The ``id()`` of every host-side event of a GPU profile that put no work on a device: neither it nor any event
    nested in it on its thread (``cpu_children``) has device kernels attributed to it or is a CUDA call of
    :data:`DEVICE_WORK_CALL`. A dispatcher operator among them ran on host tensors (a forward that copied its inputs
    to the host, or had a kernel write them into pinned host memory, and let torch compute there: no kernel time
    shows that work, so the coverage share could not). Walked without recursion."""
    busy: dict[int, bool] = {}
    for root in events:
        pending = [(root, False)]
        while pending:
            event, children_done = pending.pop()
            if id(event) in busy:
                continue
            children = list(getattr(event, "cpu_children", None) or [])
            if not children_done:
                pending.append((event, True))
                pending.extend((c, False) for c in children if id(c) not in busy)
                continue
            busy[id(event)] = bool(getattr(event, "kernels", None)) or bool(DEVICE_WORK_CALL.match(event.name)) \
                or any(busy.get(id(c), False) for c in children)
    return {id(e) for e in events if not str(getattr(e, "device_type", "")).endswith("CUDA") and not busy[id(e)]}


class LaunchCounter:
    """Counts launches of Triton kernels by kernel name: every call of ``JITFunction.run`` (a launch on the GPU;
    autotuned and heuristic kernels end there too) and of the interpreter's ``InterpretedFunction.run`` (CPU mode).

    Installed in the worker before any candidate code and never switched off, so a forward cannot tell the calls
    whose launches the runner looks at (every trial's: :meth:`kernelgym.judge.worker.Worker.trial`) from the others.
    :attr:`installed` names the wrapped methods (their paths, for the worker's watch on patched functions)."""

    #: the launch methods wrapped, as ``(module, class)``
    TARGETS = (("triton.runtime.jit", "JITFunction"), ("triton.runtime.interpreter", "InterpretedFunction"))

    def __init__(self):
        self.counts: dict[str, int] = {}
        self.installed: list[str] = []
        #: called as ``observer(launcher, args, kwargs)`` after each launch while set (the worker's
        #: :class:`~kernelgym.judge.gpu_compile.LaunchSpecs` during the first forward on the CPU)
        self.observer = None
        #: bytes of the interpreter's own copies of its launches' arguments so far (:func:`torch_copied_bytes`)
        self.interpreter_copy_bytes = 0

    def install(self) -> bool:
        import importlib

        global _record_function, _storage_functions
        import torch
        from torch.autograd.profiler import record_function as _record_function

        _storage_functions = ((torch.Tensor, torch.nn.Parameter), torch.Tensor.untyped_storage,
                              torch.UntypedStorage.data_ptr, torch.UntypedStorage.nbytes)

        counter = self
        for module_name, class_name in self.TARGETS:
            try:
                cls = getattr(importlib.import_module(module_name), class_name, None)
            except ImportError:  # pragma: no cover
                cls = None
            if cls is None or not hasattr(cls, "run") or getattr(cls.run, "_kernelgym_counts", False):
                continue

            def make(original, interpreted=class_name == "InterpretedFunction"):
                def run(self, *args, **kwargs):
                    if interpreted:  # its own copies of the arguments in and out are no torch copy of the forward's
                        with _record_function(LAUNCH_RANGE):
                            out = original(self, *args, **kwargs)
                    else:
                        out = original(self, *args, **kwargs)
                    if interpreted and not kwargs.get("warmup"):  # after the run: a launch that raised copied
                        counter.interpreter_copy_bytes += _argument_storage_bytes(args, kwargs)  # nothing back
                    if not kwargs.get("warmup"):  # a warm-up compiles and returns: nothing ran (an eighth
                        name = getattr(getattr(self, "fn", None), "__name__", "?")  # red-team helper's token)
                        counter.counts[name] = counter.counts.get(name, 0) + 1
                        if counter.observer is not None:
                            counter.observer(self, args, kwargs)
                    return out

                run._kernelgym_counts = True
                return run

            cls.run = make(cls.run)
            self.installed.append(f"{module_name}.{class_name}.run")
        return bool(self.installed)

    def own(self, names) -> int:
        """Launches counted so far of the kernels named ``names``."""
        return sum(n for name, n in self.counts.items() if name in names)


#: the ``torch`` factories whose values no tensor carries in (called without a tensor argument anywhere, no
#: ``out=``, no ``generator=``): random draws and constants. A CPU tensor one of them made in a forward may be read
#: by host code under ``strict`` (a Random task's seed, ``torch.randint(...).item()``) while its storage holds the
#: bytes the factory wrote (:class:`HostReads`). ``empty`` and its kin are not here: their values are whatever the
#: allocator's block held before, an input-derived temporary the forward just freed among them
RANDOM_FACTORIES = ("rand", "randn", "randint", "randperm")
CONSTANT_FACTORIES = ("zeros", "ones", "full", "arange", "linspace", "logspace", "eye")
#: the reads that copy values out to a Python object (not ``numpy``, ``__array__`` or ``__dlpack__``: those alias
#: the memory, which a kernel may write after the read was let through)
VALUE_READS = frozenset({"tolist", "item", "__float__", "__int__", "__complex__", "__index__", "__bool__"})
#: the largest storage whose reads may be exempt (a seed, a few coefficients): its bytes are kept at creation
EXEMPT_MAX_BYTES = 1 << 16
#: the most storages one forward's factories may have recorded (and the model's own small tensors, apiece)
EXEMPT_MAX_RECORDS = 256
#: the aten operators an exempt factory call or read runs that are not data movement (:data:`ATEN_DATA_MOVEMENT`):
#: forgiven by the profile only inside a range :class:`HostReads` opened and trusted (:attr:`HostReads.trusted`)
EXEMPT_OPS = re.compile(r"^aten::(rand|randn|randint|randperm|random_|uniform_|normal_|scalar_tensor|linspace|"
                        r"logspace|eye|item|_local_scalar_dense|is_pinned)$")
#: the prefix of those ranges' names; each name ends in a nonce drawn for that call alone
EXEMPT_RANGE = f"kernelgym_exempt_{secrets.token_hex(8)}_"


def within_trusted(events, trusted) -> set[int]:
    """The ``id()`` of every event nested in a range whose name is one of ``trusted`` (:attr:`HostReads.trusted`):
    a name seen more than once (a range the forward opened with a name it read) is trusted nowhere."""
    seen: dict[str, list] = {}
    for e in events:
        name = getattr(e, "name", None)
        if isinstance(name, str) and name in trusted:
            seen.setdefault(name, []).append(e)
    inside: set[int] = set()
    pending = [v[0] for v in seen.values() if len(v) == 1]
    while pending:
        event = pending.pop()
        if id(event) not in inside:
            inside.add(id(event))
            pending.extend(getattr(event, "cpu_children", None) or [])
    return inside


class HostReads:
    """Counts the calls that hand a tensor's values to host code other than torch's: numpy (``Tensor.numpy``,
    ``__array__``, which ``np.asarray(t)`` and every numpy function given a tensor call), DLPack, Python lists and
    numbers. Under the ``strict`` policy a forward that makes one computed something outside the candidate's
    kernels: numpy's ``np.dot`` on the inputs, with a Triton copy kernel writing the result, was ``ok`` (a red-team
    helper, 2026-12-06); on the CPU no aten operator shows it, on a GPU no kernel time does.

    Not counted, between :meth:`begin` and :meth:`end` (the judged forwards): a read that copies values out
    (:data:`VALUE_READS`) of a plain CPU tensor whose whole storage holds, byte for byte, either what a factory of
    :data:`RANDOM_FACTORIES` or :data:`CONSTANT_FACTORIES` wrote into it in this forward, called through this
    module's wrapper without a tensor argument (a random draw only while torch's CPU generator was where the last
    such draw, or :meth:`begin`, left it: a state set from a tensor would carry values in), or what one of the
    model's own parameters and buffers held when :meth:`begin` was called (:meth:`_unchanged`). Values are compared
    before and after the read, not writes tracked: a kernel's write, ``copy_``, ``out=``, ``set_``, a storage's own
    ``copy_`` or a shared storage all change the bytes, and a storage the forward took over (``set_`` of an input's)
    is not a recorded one. Such a read is run inside a profiler range of a name drawn for it (:attr:`trusted`),
    inside which the profile forgives :data:`EXEMPT_OPS`.

    Installed in the worker before any candidate code and never switched off, like :class:`LaunchCounter`, so a
    forward cannot tell the counted calls from the others; :attr:`installed` names the wrapped methods."""

    #: the methods wrapped, as ``(class path, method names)``: a tensor's, and a storage's (``bytes(s)``,
    #: ``s.tolist()`` and ``s[i]`` read ``x.untyped_storage()`` without a tensor method; an eleventh red-team
    #: helper). The C base classes' own methods (``torch._C.TensorBase.numpy``) cannot be wrapped: the static
    #: rules refuse what reaches them (``super(torch.Tensor, x)``, ``mro``, private names)
    METHODS = (("torch.Tensor", ("numpy", "__array__", "__dlpack__", "tolist", "item", "__float__", "__int__",
                                 "__complex__", "__index__", "__bool__")),
               ("torch.storage._StorageBase", ("tolist", "__iter__", "__getitem__")),
               ("torch.storage.UntypedStorage", ("__getitem__",)),
               ("torch.storage.TypedStorage", ("tolist", "__iter__", "__getitem__")))

    def __init__(self):
        self.count = 0
        self.installed: list[str] = []
        #: reads let through uncounted since :meth:`begin`
        self.exempt = 0
        #: the names of the profiler ranges of this forward's exempt calls (:func:`within_trusted`)
        self.trusted: set[str] = set()
        self._armed = False
        self._made: dict = {}  # (storage address, bytes) -> (tensor kept alive, its bytes at creation)
        self._constants: dict = {}  # the same, for the model's parameters and buffers at begin
        self._rng = None  # the CPU generator's state where the last exempt draw (or begin) left it
        self._tools = None

    def install(self) -> bool:
        import ctypes
        import importlib

        import torch
        from torch.autograd.profiler import record_function
        from torch.utils._device import _device_constructors

        # torch's device context (``with torch.device(...)``) keeps the set of factories it places, made once on
        # first use: made after the wrappers below, it held them and not torch's own functions, so every factory
        # the wrappers called made its tensor on the CPU (every input on the GPU, H100 at b6b903a)
        _device_constructors()
        c = torch._C
        self._tools = {"tensors": (torch.Tensor, torch.nn.Parameter), "storage": torch.Tensor.untyped_storage,
                       "ptr": torch.UntypedStorage.data_ptr, "nbytes": torch.UntypedStorage.nbytes,
                       "device": c.StorageBase.__dict__["device"].__get__, "pinned": torch.UntypedStorage.is_pinned,
                       "bytes": ctypes.string_at, "range": record_function, "token": secrets.token_hex,
                       "modes": (c._len_torch_function_stack, c._len_torch_dispatch_stack),
                       "generator": torch.default_generator, "get_state": torch.Generator.get_state,
                       "module": torch.nn.Module, "dict": dict,
                       "plain": (int, float, bool, complex, str, type(None), torch.dtype, torch.device, torch.layout,
                                 torch.memory_format, torch.Size)}
        for path, names in self.METHODS:
            module, _, cls_name = path.rpartition(".")
            cls = getattr(importlib.import_module(module), cls_name, None)
            for name in names:
                original = getattr(cls, name, None)
                if original is None or getattr(original, "_kernelgym_counts", False):
                    continue
                exemptable = path == "torch.Tensor" and name in VALUE_READS
                setattr(cls, name, self._counting(original, exemptable))
                self.installed.append(f"{path}.{name}")
        for name in RANDOM_FACTORIES + CONSTANT_FACTORIES:
            original = getattr(torch, name, None)
            if original is None or getattr(original, "_kernelgym_counts", False):
                continue
            wrapped = self._recording(original, name in RANDOM_FACTORIES)
            setattr(torch, name, wrapped)
            self.installed.append(f"torch.{name}")
            register = getattr(getattr(torch.jit, "_builtins", None), "_register_builtin", None)
            if register is not None:  # TorchScript still knows the op (as dynamo does for manual_seed)
                register(wrapped, f"aten::{name}")
        return bool(self.installed)

    # -- the judged forwards ------------------------------------------------------------------------------
    def begin(self, model=None) -> None:
        """Start a judged forward: no factory-made storage is recorded yet; the small CPU parameters and buffers of
        ``model`` (walked through the modules' own dictionaries, no method of the model's called) are recorded with
        their bytes now."""
        self._armed = False
        self._made.clear()
        self._constants.clear()
        self.trusted = set()
        self.exempt = 0
        tools = self._tools
        if tools is None:
            return
        pending, seen = [model], set()
        while pending and len(self._constants) < EXEMPT_MAX_RECORDS:
            module = pending.pop()
            if not isinstance(module, tools["module"]) or id(module) in seen:
                continue
            seen.add(id(module))
            state = object.__getattribute__(module, "__dict__")
            for key in ("_parameters", "_buffers"):
                values = state.get(key)
                for value in (tools["dict"].values(values) if type(values) is tools["dict"] else ()):
                    record = self._record(value)
                    if record is not None:
                        self._constants[record[0]] = record[1]
            children = state.get("_modules")
            if type(children) is tools["dict"]:
                pending.extend(tools["dict"].values(children))
        self._rng = self._rng_state()
        self._armed = True

    def end(self) -> None:
        """End a judged forward: nothing is recorded or exempt until the next :meth:`begin` (the records go)."""
        self._armed = False
        self._made.clear()
        self._constants.clear()

    def _rng_state(self):
        tools = self._tools
        state = tools["get_state"](tools["generator"])
        storage = tools["storage"](state)
        return tools["bytes"](tools["ptr"](storage), tools["nbytes"](storage))

    def _record(self, tensor):
        """``((address, bytes), (tensor, its storage's bytes now))`` for a plain CPU tensor of a small unpinned
        storage, else ``None``."""
        tools = self._tools
        if type(tensor) not in tools["tensors"]:
            return None
        try:  # a tensor without a storage (sparse, nested, a functional wrapper) raises: never exempt
            storage = tools["storage"](tensor)
            ptr, nbytes = tools["ptr"](storage), tools["nbytes"](storage)
            if not ptr or not 0 < nbytes <= EXEMPT_MAX_BYTES or tools["device"](storage).type != "cpu" or \
                    tools["pinned"](storage):
                return None
        except Exception:  # noqa: BLE001
            return None
        return (ptr, nbytes), (tensor, tools["bytes"](ptr, nbytes))

    def _unchanged(self, tensor):
        """The key of ``tensor``'s storage where it is a recorded one holding its recorded bytes and no torch mode
        is on (a mode's handler would run inside the read), else ``None``."""
        tools = self._tools
        if not self._armed or any(depth() for depth in tools["modes"]):
            return None
        found = self._record(tensor)
        if found is None:
            return None
        key, (_, now) = found
        kept = self._made.get(key) or self._constants.get(key)
        return key if kept is not None and kept[1] == now else None

    def _counting(self, original, exemptable: bool = False):
        """``original`` wrapped to count each call in :attr:`count` (but an exempt read of :meth:`_unchanged`)."""
        counter = self
        unchanged = self._unchanged
        tools = self._tools

        def read(*args, **kwargs):
            if exemptable and counter._armed and len(args) == 1 and not kwargs:
                name = EXEMPT_RANGE + tools["token"](8)
                with tools["range"](name):  # the checks' own operators (``is_pinned``) inside it too
                    key = unchanged(args[0])
                    out = original(*args)
                    # also after: nothing wrote it while the read ran
                    exempt = key is not None and unchanged(args[0]) == key
                if exempt:
                    counter.trusted.add(name)
                    counter.exempt += 1
                else:
                    counter.count += 1
                return out
            counter.count += 1
            return original(*args, **kwargs)

        read._kernelgym_counts = True
        read.__name__ = getattr(original, "__name__", "read")
        return read

    def _recording(self, original, random: bool):
        """``original``, a factory of ``torch``, wrapped to record the CPU storage it made in a judged forward when
        called without a tensor argument (nor ``out=`` or ``generator=``) and, for a random draw, from the CPU
        generator's state the last recorded draw left."""
        counter = self
        tools = self._tools

        def make(*args, **kwargs):
            if not counter._armed or kwargs.get("generator") is not None or "out" in kwargs or \
                    len(counter._made) >= EXEMPT_MAX_RECORDS or not _plain(args, kwargs, tools["plain"]):
                return original(*args, **kwargs)
            if random and counter._rng_state() != counter._rng:
                return original(*args, **kwargs)
            name = EXEMPT_RANGE + tools["token"](8)
            with tools["range"](name):
                out = original(*args, **kwargs)
                if random:
                    counter._rng = counter._rng_state()
                record = counter._record(out) if counter._armed else None
            if record is not None:
                counter._made[record[0]] = record[1]
                counter.trusted.add(name)
            return out

        make._kernelgym_counts = True
        make.__name__ = getattr(original, "__name__", "make")
        make.__doc__ = getattr(original, "__doc__", None)
        return make


def _plain(args, kwargs, plain) -> bool:
    """Whether ``args`` and ``kwargs``' values are all of the exact types ``plain`` (numbers, strings, dtypes,
    devices, sizes), in lists and tuples too: no tensor (a 0-dim tensor as a size or a fill value is read by torch's
    C++ without a counted read) and no object of the forward's (one with ``__torch_function__`` would be handed the
    call and return a tensor of its choosing)."""
    pending = list(args) + list(kwargs.values())
    while pending:
        value = pending.pop()
        if type(value) in (list, tuple):
            pending.extend(value)
        elif type(value) not in plain:
            return False
    return True
