"""Append-only, crash-safe JSONL files of rows, and their conversion to Parquet.

Guarantees of :class:`JsonlWriter`:

* One row is one line, written with a single ``write`` on a file opened ``O_APPEND``, then ``fsync``-ed before
  :meth:`JsonlWriter.write` returns. A row is *committed* once its terminating newline is on disk.
* Nothing is ever rewritten in place. A process killed at any moment (``kill -9``) leaves every committed row
  intact; at worst the last line is a partial row without its newline.
* Opening an existing file for appending (:meth:`JsonlWriter.open`) first checks its last line: a partial or
  unparsable last line is cut off (its bytes are kept in ``<file>.damaged``) with a :class:`DamagedLineWarning`,
  so new rows never glue onto a broken one.

:func:`read_rows` skips damaged lines anywhere in a file with a warning and returns the valid rows.
"""

from __future__ import annotations

import json
import os
import threading
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kernelgym.judge.result import valid_data


class DamagedLineWarning(UserWarning):
    """A JSONL line was partial or not valid JSON and was skipped."""


@dataclass
class JsonlContents:
    """What :func:`read_rows` found: the valid rows and, for each damaged line, ``(line number, reason)``."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    damaged: list[tuple[int, str]] = field(default_factory=list)


def _parse_line(line: bytes) -> dict[str, Any] | None:
    try:
        row = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return None
    return row if isinstance(row, dict) else None


def read_rows(path: str | Path, warn: bool = True) -> JsonlContents:
    """The rows of a JSONL file (none if it does not exist). A line counts only when it ends with a newline and
    holds a JSON object; any other line is reported in ``damaged`` and, with ``warn``, as a warning."""
    path = Path(path)
    contents = JsonlContents()
    if not path.exists():
        return contents
    data = path.read_bytes()
    lines = data.split(b"\n")
    for number, line in enumerate(lines, start=1):
        last = number == len(lines)
        if last and not line:
            break  # the file ends with a newline
        row = None if last else _parse_line(line)
        if row is None:
            reason = "incomplete last line (no newline)" if last else "not a JSON object"
            contents.damaged.append((number, reason))
            if warn:
                warnings.warn(f"{path}: line {number} skipped: {reason}", DamagedLineWarning, stacklevel=2)
            continue
        contents.rows.append(row)
    return contents


def repair_tail(path: str | Path) -> bool:
    """Cut a damaged last line off ``path`` (saving its bytes to ``<path>.damaged``); True when one was cut.

    Only the last line is ever removed, and only when it lacks its newline or does not parse: that is the one
    line an interrupted append can leave behind.
    """
    path = Path(path)
    if not path.exists():
        return False
    with open(path, "rb") as f:
        data = f.read()
    if not data:
        return False
    body = data[:-1] if data.endswith(b"\n") else data
    start = body.rfind(b"\n") + 1
    last = data[start:]
    if last.endswith(b"\n") and _parse_line(last[:-1]) is not None:
        return False
    with open(path.with_name(path.name + ".damaged"), "ab") as keep:
        keep.write(last if last.endswith(b"\n") else last + b"\n")
        keep.flush()
        os.fsync(keep.fileno())
    with open(path, "r+b") as f:
        f.truncate(start)
        f.flush()
        os.fsync(f.fileno())
    line_number = data.count(b"\n", 0, start) + 1
    reason = "incomplete (no newline)" if not last.endswith(b"\n") else "not a JSON object"
    warnings.warn(f"{path}: damaged last line {line_number} ({reason}) skipped; its bytes were moved to "
                  f"{path.name}.damaged", DamagedLineWarning, stacklevel=2)
    return True


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class JsonlWriter:
    """Appends rows to a JSONL file, one fsync-ed line per row. Thread-safe. Use :meth:`open` or ``with``."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._fd: int | None = None
        self._lock = threading.Lock()

    @classmethod
    def open(cls, path: str | Path) -> "JsonlWriter":
        """Open for appending, creating the file (and its folder) or repairing a damaged last line first."""
        writer = cls(path)
        writer._open()
        return writer

    def _open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        existed = self.path.exists()
        if existed:
            repair_tail(self.path)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        if not existed:
            _fsync_dir(self.path.parent)

    def write(self, row: dict[str, Any]) -> None:
        """Append one row and make it durable (written and fsync-ed) before returning. A lone surrogate in a string
        (a policy's answer decoded from JSON's ``\\ud800``, a candidate's message) is written as its escape text
        (:func:`~kernelgym.judge.result.valid_text`): UTF-8 cannot hold it, and the row is kept, not lost."""
        line = json.dumps(valid_data(row), ensure_ascii=False, separators=(",", ":")) + "\n"
        line = line.encode("utf-8")
        with self._lock:
            if self._fd is None:
                raise ValueError(f"{self.path} is not open")
            view = memoryview(line)
            while view:
                written = os.write(self._fd, view)
                view = view[written:]
            os.fsync(self._fd)

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def __enter__(self) -> "JsonlWriter":
        if self._fd is None:
            self._open()
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def jsonl_to_parquet(source: str | Path, target: str | Path | None = None, schema=None) -> Path:
    """Write the valid rows of a JSONL file to Parquet (``<source stem>.parquet`` by default); damaged lines
    are skipped with a warning. The file is written to a temporary name and renamed, so a reader never sees a
    half-written Parquet file. ``schema`` (a pyarrow schema) fixes the column types; without it pyarrow infers.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    source = Path(source)
    if not source.is_file():
        raise OSError(f"cannot read {source}")
    target = Path(target) if target is not None else source.with_suffix(".parquet")
    if target.resolve() == source.resolve():  # the JSONL file would be replaced by its Parquet copy
        raise ValueError(f"{source} would be overwritten by its own Parquet file: name the JSONL file *.jsonl "
                         f"(the Parquet file goes next to it)")
    rows = read_rows(source).rows
    table = pa.Table.from_pylist(rows, schema=schema) if rows or schema is not None else pa.table({})
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    pq.write_table(table, tmp)
    os.replace(tmp, target)
    return target
