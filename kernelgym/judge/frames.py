"""What a worker's frame may hold: each event's fields and their types, checked as the frame is read.

The worker runs the candidate's code, so every frame is the candidate's word: a candidate that reaches the result
channel can write any JSON object there (a red-team helper did, through numpy's text-file functions, 2026-12-06).
The runner reads fields of those frames in many places; a field of an unexpected type (a number where a list is
due, a list where a dict is) raised ``TypeError``/``AttributeError`` there, which the judge reports as its own
fault (``judge_error``): a sample trainers drop, so a policy could trade a sure penalty for a crash. And a
worker-chosen flag name went into the result's flags as it came, ``judge_error`` and ``aborted`` included.

:func:`check_frame` is called on every frame as the runner reads it (:meth:`kernelgym.judge.session.Session.expect`,
the one place frames are read) and raises :class:`~kernelgym.judge.protocol.ProtocolError` (the candidate's fault:
``crashed``, "the worker sent a malformed message") for any frame outside what the worker's own code sends:

* every integer within :data:`MAX_INT` (each fits a float exactly; ``float(10**400)`` raised ``OverflowError``);
* ``event`` a string, ``integrity_flags`` absent, ``null`` or a list of ``[name, reason]`` string pairs whose names
  are the worker's own (:data:`WORKER_FLAGS`);
* the fields of ``outputs`` and ``profile`` frames of the types the runner reads them as (:data:`FIELD_CHECKS`).

The values' meaning (times non-negative and as many as the calls, spans finite, launch counts) is still checked
where they are used; this module only makes sure they can be used.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from kernelgym.judge.protocol import Event, ProtocolError

#: the integrity flags the worker's own code raises (``Worker.integrity_flags``, ``timing.snapshot_refusal``):
#: evidence against the candidate, so never a name the judge gives its own faults
WORKER_FLAGS = frozenset({"monkeypatch", "dispatch_mode", "background_thread", "tensor_subclass"})
#: the largest integer (in size) a frame may hold
MAX_INT = 2 ** 53


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _list_of(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda value: isinstance(value, list) and all(check(v) for v in value)


def _optional(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda value: value is None or check(value)


def _dict_with(fields: dict[str, Callable[[Any], bool]], required: tuple = ()) -> Callable[[Any], bool]:
    """A dict holding the ``required`` fields, whose listed fields, where present, pass their checks (other keys are
    not read)."""
    return lambda value: (isinstance(value, dict) and all(k in value for k in required)
                          and all(check(value[k]) for k, check in fields.items() if k in value))


def _str(value: Any) -> bool:
    return isinstance(value, str)


def _finite_non_negative(value: Any) -> bool:
    return _is_number(value) and math.isfinite(value) and value >= 0


def _output_description(desc: Any) -> bool:
    """One entry of an ``outputs`` frame's ``descs`` (``Worker.send_outputs``): a tensor's dtype, shape and layout
    (strides as many as its dimensions, ``contiguous``, ``lazy`` and ``aliases_input`` flags, its device:
    :func:`kernelgym.judge.timing.layout`), a
    number's value, or the type's name of a tensor subclass or of anything else (a red-team helper named a class
    ``scalar`` when the kind was the type's name: a number without a value, compared as ``None``)."""
    if not isinstance(desc, dict):
        return False
    kind = desc.get("kind")
    if kind == "tensor":
        shape = desc.get("shape")
        return (_str(desc.get("dtype")) and _list_of(lambda s: _is_int(s) and s >= 0)(shape)
                and _optional(lambda v: _list_of(lambda s: _is_int(s) and s >= 0)(v) and len(v) == len(shape))(
                    desc.get("strides"))
                and all(_optional(lambda v: isinstance(v, bool))(desc.get(k))
                        for k in ("contiguous", "lazy", "aliases_input"))
                and _optional(_str)(desc.get("device")))
    if kind == "scalar":
        return _is_number(desc.get("value"))
    return kind in ("subclass", "other") and _str(desc.get("type"))


#: per event, the fields the runner reads and what each must be where present
FIELD_CHECKS: dict[str, dict[str, Callable[[Any], bool]]] = {
    Event.OUTPUTS: {"descs": _list_of(_output_description), "mutated_inputs": _optional(_list_of(_is_int))},
    Event.PROFILE: {"report": _dict_with({
        "candidate_kernels": _list_of(_str), "aten_compute_ops": _list_of(_str),
        "interpreter_launches": lambda v: isinstance(v, dict) and all(_str(k) and _is_int(n) for k, n in v.items()),
        "coverage": _optional(_finite_non_negative), "launched": _list_of(_str),
        "top_kernels": _list_of(lambda k: isinstance(k, dict)),
        "foreign_kernels": _list_of(_dict_with({"name": _str}, required=("name",))),
        "kernel_us_total": _is_number, "kernel_us_candidate": _is_number,
        "host_copies": lambda v: _is_int(v) and v >= 0,
        "torch_copied_bytes": lambda v: _is_int(v) and v >= 0, "output_bytes": lambda v: _is_int(v) and v >= 0})},
}


def _integers_in_range(header: dict) -> bool:
    """Whether every integer anywhere in ``header`` is within :data:`MAX_INT` (walked without recursion: the JSON
    parser already bounded the nesting)."""
    pending = [header]
    while pending:
        value = pending.pop()
        if isinstance(value, dict):
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
        elif _is_int(value) and abs(value) > MAX_INT:
            return False
    return True


def _worker_flag(flag: Any) -> bool:
    return isinstance(flag, list) and len(flag) == 2 and flag[0] in WORKER_FLAGS and _str(flag[1])


def check_frame(header: dict) -> None:
    """Raise :class:`ProtocolError` unless ``header`` (a parsed frame) holds only what the worker's own code sends
    (see the module docstring); return nothing otherwise."""
    if not _integers_in_range(header):
        raise ProtocolError(f"a number in the frame is beyond {MAX_INT}")
    event = header.get("event")
    if not _str(event):
        raise ProtocolError("a frame without an event name")
    if not _optional(_list_of(_worker_flag))(header.get("integrity_flags")):
        raise ProtocolError(f"the {event!r} frame's integrity flags are not [name, reason] pairs of the worker's "
                            f"own flags ({', '.join(sorted(WORKER_FLAGS))})")
    for field, check in FIELD_CHECKS.get(event, {}).items():
        if field in header and not check(header[field]):
            raise ProtocolError(f"the {event!r} frame's {field!r} is not what the worker sends")
