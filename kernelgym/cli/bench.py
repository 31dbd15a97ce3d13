"""``kernelgym bench``: run benchmarks/bench_solutions.py (from a source checkout) with the given arguments.

Every argument after ``bench`` goes to the script unchanged, so ``kernelgym bench --help`` prints its options.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from kernelgym.cli.errors import CliError

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_solutions.py"
HELP = "time the bundled solutions through the judge (benchmarks/bench_solutions.py; see bench --help)"


def register(sub) -> None:
    """Listed in ``kernelgym --help``; the arguments are handled by :func:`run`, not by this parser."""
    sub.add_parser("bench", help=HELP, add_help=False)


def run(argv: list[str]) -> int:
    """Run the benchmark script's ``main()`` with ``argv`` as its arguments; its exit status."""
    if not SCRIPT.is_file():
        raise CliError(f"{SCRIPT} not found: kernelgym bench runs from a source checkout")
    spec = importlib.util.spec_from_file_location("kernelgym_bench_solutions", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    saved = sys.argv
    sys.argv = ["kernelgym bench", *argv]
    try:
        return int(module.main() or 0)
    except SystemExit as exc:  # argparse --help / usage errors
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    finally:
        sys.argv = saved
