"""A progress bar with live counts (compiled, correct, fast_1 ...) on stderr, for long batch jobs."""

from __future__ import annotations

from typing import Iterable


class LiveCounts:
    """A rich progress bar whose line also shows named counters. Disabled, it does nothing.

    Use as a context manager; call :meth:`advance` once per finished item with the counters it increments.
    """

    def __init__(self, total: int, description: str, counters: Iterable[str], enabled: bool = True):
        self.counts = {name: 0 for name in counters}
        self.total = total
        self.description = description
        self.enabled = enabled
        self._progress = None
        self._task = None

    def _stats(self) -> str:
        return "  ".join(f"{name} {value}" for name, value in self.counts.items())

    def __enter__(self) -> "LiveCounts":
        if self.enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                      TimeElapsedColumn(), TextColumn("{task.fields[stats]}"),
                                      console=Console(stderr=True))
            self._progress.start()
            self._task = self._progress.add_task(self.description, total=self.total, stats=self._stats())
        return self

    def advance(self, **increments: int) -> None:
        """One more item done; add ``increments`` to the named counters (new names are added)."""
        for name, value in increments.items():
            self.counts[name] = self.counts.get(name, 0) + int(value)
        if self._progress is not None:
            self._progress.update(self._task, advance=1, stats=self._stats())

    def __exit__(self, *exc) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
