"""Who held a GPU's memory when a candidate's worker ran out of it: the trusted side's account, not the worker's.

A worker's out-of-memory message is the candidate's text (it can print one), and the "this process has N GiB in use"
it carries describes one process only. When a worker runs out of GPU memory, the runner asks the driver (through
``nvidia-smi``, as the runner's own user, outside every sandbox) how much each process on the device holds, and
splits it into the worker's process tree (the candidate's: every process started under its sandbox, whatever
process group it put itself in) and everything else (the runner, other evaluations' workers, spares, other users).

:class:`MemoryAccount` is that split; :meth:`MemoryAccount.others_beyond` says whether what the candidate did not
hold exceeded the share of the GPU the judge's memory budget leaves outside its reservations
(:data:`kernelgym.judge.admission.GPU_MEMORY_SHARE`). Where it did, with the candidate's evaluation holding the whole
budget, the judge broke its own promise: the out-of-memory error is not the candidate's verdict
(:meth:`kernelgym.judge.runner.Judge._run_worker_or_retry_alone`). On an H100 at b21456f an honest L1/17 solution
ran out with the GPU to itself by the budget's account, 1.57 of 79.18 GiB free, its own process holding 14.22 GiB
(docs/BENCHMARKS.md, twentieth session): without this account, nothing said who held the rest.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass

from kernelgym.judge.process import descendants

#: seconds ``nvidia-smi`` may take to answer
QUERY_TIMEOUT_S = 10.0
MIB = 1 << 20


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def canonical_uuid(text: str) -> str | None:
    """The ``8-4-4-4-12`` hex UUID inside ``text`` (``GPU-…`` as ``nvidia-smi`` writes it, bare or wrapped as torch
    may print it), lower-case; ``None`` where there is none."""
    found = _UUID.search(text.lower())
    return found.group(0) if found else None


def parse_compute_apps(text: str, uuid: str) -> dict[int, int]:
    """``nvidia-smi --query-compute-apps=pid,used_memory,gpu_uuid --format=csv,noheader,nounits`` output to
    ``{pid: bytes}`` for the device whose UUID is ``uuid`` (:func:`canonical_uuid`: any writing of it). Lines that do
    not parse (``[N/A]`` memory, a header) are skipped; a pid listed twice is summed."""
    want = canonical_uuid(uuid)
    held: dict[int, int] = {}
    for line in text.splitlines():
        fields = [f.strip() for f in line.split(",")]
        if want is None or len(fields) != 3 or canonical_uuid(fields[2]) != want:
            continue
        try:
            pid, mib = int(fields[0]), int(float(fields[1]))
        except ValueError:
            continue
        held[pid] = held.get(pid, 0) + mib * MIB
    return held


def device_uuid(device: str) -> str | None:
    """The UUID of torch's ``device`` (as ``nvidia-smi`` names it, after ``CUDA_VISIBLE_DEVICES``), or ``None``."""
    import torch

    try:
        return str(torch.cuda.get_device_properties(torch.device(device)).uuid)
    except (AttributeError, RuntimeError, AssertionError):
        return None


def memory_by_process(device: str) -> dict[int, int] | None:
    """``{pid: bytes}`` of every process holding memory on ``device``, from the driver; ``None`` where that cannot
    be asked (no ``nvidia-smi``, no UUID, a timeout)."""
    uuid, smi = device_uuid(device), shutil.which("nvidia-smi")
    if uuid is None or smi is None:
        return None
    try:
        done = subprocess.run([smi, "--query-compute-apps=pid,used_memory,gpu_uuid", "--format=csv,noheader,nounits"],
                              capture_output=True, text=True, timeout=QUERY_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return parse_compute_apps(done.stdout, uuid) if done.returncode == 0 else None


@dataclass
class MemoryAccount:
    """Bytes on one GPU at one moment: its total and free memory, and what the processes on it held, split into
    the candidate's worker tree, the runner (this process) and everything else."""
    total: int
    free: int
    worker: int
    runner: int
    others: int

    def not_the_candidates(self, runner_own: int = 0) -> int:
        """What processes outside the candidate's tree held for other work than this evaluation: the others' and the
        runner's beyond ``runner_own`` (what the evaluation's own reservation covers on the runner's side: its
        reference outputs, its float64 results, its copies of the candidate's outputs, all of which a candidate can
        make the runner compute). Memory the driver attributes to no listed process is not counted (it may be the
        candidate's)."""
        return self.others + max(0, self.runner - runner_own)

    def others_beyond(self, share: float, runner_own: int = 0) -> bool:
        """Whether memory held for other work than this evaluation (:meth:`not_the_candidates`) exceeded the part of
        the GPU (``1 - share`` of its total) that a memory budget of ``share`` leaves outside its reservations."""
        return self.not_the_candidates(runner_own) > (1.0 - share) * self.total

    def describe(self) -> str:
        gib = 1 << 30
        return (f"GPU memory then (the driver's account): {self.free / gib:.2f} of {self.total / gib:.2f} GiB free; "
                f"the candidate's processes {self.worker / gib:.2f} GiB, the runner {self.runner / gib:.2f} GiB, "
                f"other processes {self.others / gib:.2f} GiB")


def account(device: str, worker_pid: int, runner_pid: int, held: dict[int, int] | None = None,
            free_total: tuple[int, int] | None = None) -> MemoryAccount | None:
    """The :class:`MemoryAccount` of ``device`` now: ``held`` (default: :func:`memory_by_process`) split by the
    process tree of ``worker_pid`` (the candidate's) and ``runner_pid``; ``free_total`` (default: the driver's
    ``cudaMemGetInfo``). ``None`` where the driver cannot be asked, and where it lists nothing of the worker's tree
    (a worker that ran out of memory holds some: a driver that cannot see into its namespace would attribute all of
    it to nobody, and a candidate's memory must never count as someone else's)."""
    if held is None:
        held = memory_by_process(device)
    if held is None:
        return None
    if free_total is None:
        import torch

        free_total = torch.cuda.mem_get_info(torch.device(device))
    tree = set(descendants(worker_pid))
    worker = sum(n for pid, n in held.items() if pid in tree)
    if not worker:
        return None
    runner = held.get(runner_pid, 0)
    others = sum(n for pid, n in held.items() if pid not in tree and pid != runner_pid)
    return MemoryAccount(total=int(free_total[1]), free=int(free_total[0]), worker=worker, runner=runner,
                         others=others)
