"""Data collection: policies that answer tasks, episode records and writers."""

from kernelgym.data.policies import ReplayPolicy

__all__ = ["ReplayPolicy"]
