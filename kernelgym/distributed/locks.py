"""GPU admission lives with the judge (:mod:`kernelgym.judge.admission`); re-exported here for existing callers."""

from kernelgym.judge.admission import GpuAdmission, MemoryBudget, NoBudget, NoLock, SharedExclusiveLock, for_device

__all__ = ["GpuAdmission", "MemoryBudget", "NoBudget", "NoLock", "SharedExclusiveLock", "for_device"]
