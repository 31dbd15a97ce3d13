"""Episode records: one row per episode, the same row in the JSONL file and in the Parquet file.

A row is flat JSON. Nested data whose types vary from record to record (EvalResults, hardware, versions) is
stored as JSON *strings*, so Hugging Face ``datasets`` (and ``pyarrow``) load both files with one fixed schema;
:meth:`EpisodeRecord.from_row` decodes them back. docs/DATASETS.md documents every column.

==============  ====================  ===========================================================================
column          type                  meaning
==============  ====================  ===========================================================================
episode_id      string                ``"<task_id>#<sample>"``; with (task_id, sample) the resume key
task_id         string                task id, e.g. ``"L1/15_relu"``
task_set        string                the task's set: ``"kernelgym"`` (bundled), ``"kernelbench"``, a folder's name
sample          int64                 sample index (0 .. N-1) of this episode for its task
level           int64                 task level
category        string                task category
backend         string                ``triton`` or ``cuda``
policy          string                the policy's name
seed            int64                 the seed the episode was reset with
messages        list<struct<role,     the chat: user prompt, assistant answer, then per later turn the feedback as
                content: string>>     a user turn and the next answer (ends with the last answer)
actions         list<string>          the policy's raw answer per turn
feedback        list<string>          the judge's feedback per turn (rendered for an LLM)
rewards         list<double>          reward per turn
results         list<string>          the EvalResult per turn, each as a JSON string
statuses        list<string>          EvalResult status per turn
num_turns       int64                 turns taken
terminated      bool                  the episode reached its goal
truncated       bool                  the turn budget ran out first
compiled        bool                  some turn compiled
correct         bool                  some turn was correct
fast_1          bool                  some turn was correct with a measured speedup > 1 (never on CPU)
best_speedup    double (nullable)     best measured speedup of a correct turn
episode_return  double                sum of rewards
hardware        string                JSON: the hardware spec the policy saw
versions        string                JSON: library versions (kernelgym, torch, triton, gymnasium, python ...)
duration_s      double                wall-clock seconds for the episode
created_at      string                ISO-8601 UTC time the episode finished
schema_version  int64                 :data:`SCHEMA_VERSION`
==============  ====================  ===========================================================================
"""

from __future__ import annotations

import json
import platform
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from kernelgym.scoring import metrics

SCHEMA_VERSION = 2  # 2: task_set


@dataclass
class EpisodeRecord:
    """One collected episode. ``results`` hold EvalResult dicts; :meth:`to_row` makes the stored row."""

    task_id: str
    sample: int
    level: int
    category: str
    backend: str
    policy: str
    seed: int
    task_set: str = ""
    messages: list[dict] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    feedback: list[str] = field(default_factory=list)
    results: list[dict] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)
    terminated: bool = False
    truncated: bool = False
    hardware: dict = field(default_factory=dict)
    versions: dict = field(default_factory=dict)
    duration_s: float = 0.0
    created_at: str = field(default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"))

    @property
    def key(self) -> tuple[str, int]:
        """The resume key: (task id, sample index)."""
        return (self.task_id, self.sample)

    @property
    def best_speedup(self) -> float | None:
        return max((s for s in map(metrics.measured_speedup, self.results) if s is not None), default=None)

    def to_row(self) -> dict[str, Any]:
        """The flat row written to JSONL and Parquet (see the module docstring)."""
        return {
            "episode_id": f"{self.task_id}#{self.sample}",
            "task_id": self.task_id,
            "task_set": self.task_set,
            "sample": int(self.sample),
            "level": int(self.level),
            "category": self.category,
            "backend": self.backend,
            "policy": self.policy,
            "seed": int(self.seed),
            "messages": [{"role": str(m["role"]), "content": str(m["content"])} for m in self.messages],
            "actions": list(self.actions),
            "feedback": list(self.feedback),
            "rewards": [float(r) for r in self.rewards],
            "results": [json.dumps(r, sort_keys=True) for r in self.results],
            "statuses": [str(r.get("status")) for r in self.results],
            "num_turns": len(self.results),
            "terminated": bool(self.terminated),
            "truncated": bool(self.truncated),
            "compiled": any(map(metrics.is_compiled, self.results)),
            "correct": any(map(metrics.is_correct, self.results)),
            "fast_1": any(metrics.is_fast(r, 1.0) for r in self.results),
            "best_speedup": self.best_speedup,
            "episode_return": float(sum(self.rewards)),
            "hardware": json.dumps(self.hardware, sort_keys=True),
            "versions": json.dumps(self.versions, sort_keys=True),
            "duration_s": float(self.duration_s),
            "created_at": self.created_at,
            "schema_version": SCHEMA_VERSION,
        }

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> "EpisodeRecord":
        """Rebuild a record from a stored row (JSON strings decoded; derived columns dropped). Rows of schema 1
        have no ``task_set``: it is left empty."""
        return cls(task_id=row["task_id"], task_set=str(row.get("task_set") or ""), sample=int(row["sample"]),
                   level=int(row["level"]), category=row["category"], backend=row["backend"], policy=row["policy"],
                   seed=int(row["seed"]), messages=[dict(m) for m in row["messages"]], actions=list(row["actions"]),
                   feedback=list(row["feedback"]), results=[json.loads(r) for r in row["results"]],
                   rewards=list(row["rewards"]), terminated=bool(row["terminated"]),
                   truncated=bool(row["truncated"]), hardware=json.loads(row["hardware"]),
                   versions=json.loads(row["versions"]), duration_s=float(row["duration_s"]),
                   created_at=row["created_at"])


def row_key(row: dict[str, Any]) -> tuple[str, int]:
    """The resume key of a stored row."""
    return (str(row["task_id"]), int(row["sample"]))


def arrow_schema():
    """The pyarrow schema of a row (used for Parquet; every column listed in the module docstring)."""
    import pyarrow as pa

    strings = pa.list_(pa.string())
    return pa.schema([
        ("episode_id", pa.string()), ("task_id", pa.string()), ("task_set", pa.string()), ("sample", pa.int64()),
        ("level", pa.int64()), ("category", pa.string()), ("backend", pa.string()), ("policy", pa.string()),
        ("seed", pa.int64()),
        ("messages", pa.list_(pa.struct([("role", pa.string()), ("content", pa.string())]))),
        ("actions", strings), ("feedback", strings), ("rewards", pa.list_(pa.float64())), ("results", strings),
        ("statuses", strings), ("num_turns", pa.int64()), ("terminated", pa.bool_()), ("truncated", pa.bool_()),
        ("compiled", pa.bool_()), ("correct", pa.bool_()), ("fast_1", pa.bool_()),
        ("best_speedup", pa.float64()), ("episode_return", pa.float64()), ("hardware", pa.string()),
        ("versions", pa.string()), ("duration_s", pa.float64()), ("created_at", pa.string()),
        ("schema_version", pa.int64()),
    ])


def hf_features():
    """The row's columns as Hugging Face ``datasets.Features`` (from :func:`arrow_schema`), for loading the JSONL
    file with the Parquet file's types: ``datasets.load_dataset("json", data_files=..., features=hf_features())``.

    Without it ``datasets`` (and ``pyarrow.json``) infer the JSONL file's types from its values: ``best_speedup``,
    null in every row on the CPU, became a column of type ``null`` (and a GPU shard's ``float64`` then clashed with
    it), and ``created_at`` a ``timestamp``, not the string the Parquet file holds."""
    import datasets

    return datasets.Features.from_arrow_schema(arrow_schema())


def library_versions() -> dict[str, str]:
    """Versions of the libraries that shape a record: kernelgym, torch, triton, gymnasium, numpy, python."""
    from importlib import metadata

    from kernelgym._version import __version__

    out = {"kernelgym": __version__, "python": platform.python_version()}
    for dist in ("torch", "triton", "gymnasium", "numpy"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "missing"
    return out
