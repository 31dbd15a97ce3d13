"""The bundled suite: counts per level and category, and the CPU part of the linter on every task."""

from __future__ import annotations

import pytest

from kernelgym.judge.lint import lint_task
from kernelgym.tasks import CATEGORIES, load_tasks

SUITE = load_tasks()


def test_suite_counts_per_level_and_category():
    counts = SUITE.counts()
    per_prefix = {p: sum(n for (q, _), n in counts.items() if q == p) for p in ("L1", "L2", "L3", "X")}
    assert per_prefix["L1"] >= 100 and per_prefix["L2"] >= 100 and per_prefix["L3"] >= 50 and per_prefix["X"] >= 50
    per_category = {c: sum(n for (_, d), n in counts.items() if d == c) for c in CATEGORIES}
    assert all(n >= 5 for n in per_category.values()), per_category


@pytest.mark.slow
@pytest.mark.parametrize("task_id", SUITE.ids)
def test_task_passes_cpu_lint(task_id):
    report = lint_task(SUITE.get(task_id))
    assert report.ok, report.render()
