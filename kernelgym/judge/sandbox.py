"""OS-level isolation for worker processes, where the OS allows it.

With ``unshare`` (util-linux) and the privilege to use it (root, or unprivileged user namespaces), each worker runs
in fresh PID, network and mount namespaces with its own ``/proc``: it sees only itself (and a ``/bin/sh`` parent
that relays its exit status), cannot signal or read the runner or any other process, and has no network.
Elsewhere the worker runs as a plain child process and the fallback is documented in docs/SECURITY.md (the static
guards, process-group kill, resource limits and the runner's memory watch still apply).
"""

from __future__ import annotations

import functools
import shutil
import signal
import subprocess

UNSHARE_FLAGS = ["--pid", "--fork", "--net", "--mount-proc", "--kill-child"]


@functools.lru_cache(maxsize=1)
def namespaces_available() -> bool:
    """Whether ``unshare`` with :data:`UNSHARE_FLAGS` works on this machine (probed once per process)."""
    exe = shutil.which("unshare")
    if exe is None:
        return False
    try:
        return subprocess.run([exe, *UNSHARE_FLAGS, "--", "/bin/sh", "-c", "exit 0"], capture_output=True,
                              timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def wrap(argv: list[str], enabled: bool = True) -> tuple[list[str], bool]:
    """``argv`` wrapped to run inside the namespaces (when ``enabled`` and available) and whether it was."""
    if not enabled or not namespaces_available():
        return argv, False
    return [shutil.which("unshare"), *UNSHARE_FLAGS, "--", "/bin/sh", "-c", '"$0" "$@"; exit $?', *argv], True


def describe_exit(code: int | None, sandboxed: bool) -> str:
    """How a worker ended, from its exit status (a shell in the sandbox reports signal N as 128 + N)."""
    if code is None:
        return "closed its result channel"
    signum = -code if code < 0 else (code - 128 if sandboxed and code > 128 else None)
    if signum is not None:
        try:
            return f"was killed by signal {signal.Signals(signum).name}"
        except ValueError:
            return f"was killed by signal {signum}"
    return f"exited with code {code}"
