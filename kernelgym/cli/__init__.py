"""The ``kernelgym`` command line (the top layer): :mod:`.main` (the parser, ``demo`` and ``tasks``), one module per
larger subcommand (:mod:`.evaluate`, :mod:`.collect`, :mod:`.bench`), shared options (:mod:`.options`) and
:class:`CliError` (:mod:`.errors`). ``kernelgym = "kernelgym.cli:main"``; ``python -m kernelgym.cli`` runs the same."""

from kernelgym.cli.errors import CliError
from kernelgym.cli.main import build_parser, main

__all__ = ["CliError", "build_parser", "main"]
