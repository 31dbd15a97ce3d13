"""Soak: many mixed steps (hostile and good) through one KernelEnv; every verdict must be the expected one.

    python benchmarks/soak.py --steps 200 [--device cpu|cuda:0] [--prestart] [--jobs N] [--budget-s S] [--json out.json]

Cycles through the exploit catalogue (kernelgym/testing/candidates.py: each with its expected statuses) and the
honest kernel, on the scaled-relu test task. Prints the number of wrong verdicts, worker processes left over at the
end, host RSS of this process, and (on a GPU) device memory in use before and after, measured with
``torch.cuda.mem_get_info`` after the judge's caches are dropped. Exit status 1 if any wrong verdict or leftover.
With ``--jobs N`` the steps run on N threads, each with its own judges (they share the GPU through its admission,
as judges in a Ray actor or JudgePool do).
"""

from __future__ import annotations

import argparse
import collections
import itertools
import json
import os
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def leftover_workers() -> int:
    tag = f"KERNELGYM_RUNNER_PID={os.getpid()}".encode()
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/environ", "rb") as f:
                    if tag in f.read().split(b"\0"):
                        count += 1
            except OSError:
                pass
    return count


def device_used_mb(device: str) -> float | None:
    if not device.startswith("cuda"):
        return None
    import torch

    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    free, total = torch.cuda.mem_get_info()
    return (total - free) / 2**20


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--device", default=None)
    ap.add_argument("--json", default=None)
    ap.add_argument("--shape", default=None, help="ROWSxCOLS of the scaled-relu task (default: its own, 4096x65536)")
    ap.add_argument("--prestart", action="store_true", help="judges keep a worker started one evaluation ahead")
    ap.add_argument("--device-transfer", action="store_true",
                    help="hand outputs over in device memory (kernelgym.judge.device_transfer): the default on a GPU "
                         "anyway; KERNELGYM_DEVICE_TRANSFER=0 sends them through host files")
    ap.add_argument("--jobs", type=int, default=1, help="steps evaluated concurrently, each thread its own judges")
    ap.add_argument("--budget-s", type=float, default=None,
                    help="start no step after this many seconds; the steps done are reported (as after SIGINT)")
    args = ap.parse_args()

    from kernelgym.judge import device_transfer
    from kernelgym.judge.profiles import get_profile
    from kernelgym.judge.runner import Judge, default_device
    from kernelgym.tasks import load_tasks
    from kernelgym.testing.candidates import EXPLOIT_POLICY, EXPLOITS, GOOD, TEST_TASKS

    device = args.device or default_device()
    task = load_tasks(TEST_TASKS).get("L1/1_scaled_relu")
    if args.shape:
        import tempfile

        from kernelgym.testing.candidates import resized_relu_task

        task = resized_relu_task(tempfile.mkdtemp(prefix="kg-task-"), *map(int, args.shape.split("x")))
    profile = get_profile("quick").with_overrides(compile_timeout_s=30, cpu_correctness_timeout_s=30)
    common = {"device": device, "memory_limit_bytes": 3 << 30, "prestart_workers": args.prestart,
              "device_transfer": args.device_transfer or device_transfer.enabled()}
    import threading
    from concurrent.futures import ThreadPoolExecutor

    local, made = threading.local(), []

    def judges():
        if not hasattr(local, "judges"):
            local.judges = {"guarded": Judge(**common), "runtime": Judge(static_checks=False, **common)}
            made.append(local.judges)
        return local.judges

    def drop_caches():
        for pair in made:
            for judge in pair.values():
                judge.reference._references.clear()
                judge.reference._compiled.clear()

    judges()["guarded"].evaluate(task, GOOD, profile=profile)  # warm caches (baseline) before measuring memory
    drop_caches()
    mem_before = device_used_mb(device)
    plan = [("good", ("guarded", GOOD, ("ok",), ""))] + [(n, c) for n, c in EXPLOITS.items()]
    wrong, counts, lock = [], collections.Counter(), threading.Lock()
    started = time.monotonic()

    stop = threading.Event()  # set by SIGINT (any number of them) or the budget: steps not yet started are skipped

    def one(step, name, case):
        if stop.is_set() or (args.budget_s is not None and time.monotonic() - started > args.budget_s):
            stop.set()
            return
        mode, text, expected, words = case
        expected = expected if isinstance(expected, tuple) else (expected,)
        result = judges()[mode].evaluate(task, text, profile=profile, torch_policy=EXPLOIT_POLICY.get(name, "partial"))
        said = result.message + " ".join(f["reason"] for f in result.flags)
        with lock:
            counts[result.status] += 1
            if result.status not in expected or words not in said:
                wrong.append({"step": step, "case": name, "status": result.status, "message": result.message[:200]})
                print(f"WRONG step {step} {name}: {result.status}: {result.message[:160]}", flush=True)
            done = sum(counts.values())
            if done % 25 == 0:
                print(f"step {done} ({time.monotonic() - started:.0f} s) {dict(counts)}", flush=True)

    signal.signal(signal.SIGINT, lambda *_: stop.set())  # `timeout -s INT` signals the whole group, maybe twice
    with ThreadPoolExecutor(args.jobs) as pool:
        for step, (name, case) in zip(range(args.steps), itertools.cycle(plan)):
            pool.submit(one, step, name, case)
    interrupted = stop.is_set()
    drop_caches()
    for pair in made:
        for judge in pair.values():
            judge.close()  # stops a spare worker (--prestart); every other worker is already gone
    mem_after = device_used_mb(device)
    report = {"device": device, "steps": args.steps, "steps_done": sum(counts.values()), "interrupted": interrupted,
              "jobs": args.jobs, "wrong_verdicts": len(wrong), "wrong": wrong,
              "leftover_workers": leftover_workers(), "statuses": dict(counts),
              "device_mem_used_mb_before": mem_before, "device_mem_used_mb_after": mem_after,
              "seconds": round(time.monotonic() - started, 1)}
    print(json.dumps({k: v for k, v in report.items() if k != "wrong"}))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    return 1 if wrong or report["leftover_workers"] or interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
