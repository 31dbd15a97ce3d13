"""User errors of the ``kernelgym`` command line. The subcommands with a module of their own (collect, eval, bench).

Each module offers ``register(subparsers)``, which adds its parser and sets ``func`` to a handler
``handler(args) -> int``. Handlers raise :class:`CliError` (or ``TaskError`` / ``ValueError`` / ``OSError``) for
user errors; :func:`kernelgym.cli.main.main` prints those as one ``kernelgym: error: ...`` line and exits 2.
"""


class CliError(Exception):
    """A user error: printed as one line, exit status 2."""
