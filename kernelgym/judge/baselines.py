"""On-disk cache of reference timings, keyed by (task source hash, device, torch version, kind).

Writes are atomic (temp file + rename), so a killed process never leaves a half-written cache; an unreadable
cache file is treated as empty.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path


class BaselineCache:
    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self._data: dict | None = None

    @staticmethod
    def key(task, device: str, torch_version: str, kind: str) -> str:
        return "|".join((task.id, task.digest, task.mode, device, task.dtype, torch_version, kind))

    def _load(self) -> dict:
        if self._data is None:
            try:
                self._data = json.loads(self.path.read_text())
                if not isinstance(self._data, dict):
                    self._data = {}
            except (OSError, ValueError):
                self._data = {}
        return self._data

    def get(self, key: str) -> dict | None:
        hit = self._load().get(key)
        if hit is None:  # another process or judge may have measured it since we read the file
            self._data = None
            hit = self._load().get(key)
        return hit

    def put(self, key: str, value: dict) -> None:
        data = self._load()
        data[key] = value
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".baselines-")
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=1, sort_keys=True)
        os.replace(tmp, self.path)
