"""Scoring: :mod:`~kernelgym.scoring.metrics` (fast_p, geometric-mean speedup, pass@k: pure functions over EvalResult
dicts) and :mod:`~kernelgym.scoring.report` (``report.json``, ``report.md``, the fast_p plot). Imports only the
judge's result vocabulary; the folder pipeline that produces the rows is :mod:`kernelgym.data.folder_eval`."""
