"""kernelgym/judge/host_sync.py: KERNELGYM_RUNNER_SYNC is checked when a judge is made, and only a CUDA device is
touched (the flag itself is read back on the GPU: tests/gpu/test_host_sync_gpu.py)."""

from __future__ import annotations

import pytest

from kernelgym.judge import host_sync
from kernelgym.judge.runner import Judge


def test_a_misspelt_mode_fails_when_the_judge_is_made(monkeypatch):
    monkeypatch.setenv(host_sync.ENV, "blocked")
    with pytest.raises(ValueError, match="KERNELGYM_RUNNER_SYNC"):
        Judge(device="cpu")


def test_modes_are_read_case_blind_and_unset_asks_nothing(monkeypatch):
    monkeypatch.delenv(host_sync.ENV, raising=False)
    assert host_sync.asked() is None
    monkeypatch.setenv(host_sync.ENV, " Blocking ")
    assert host_sync.asked() == "blocking"
    assert host_sync.apply_asked("cpu") is None  # the CPU has no context to set
    with pytest.raises(ValueError):
        host_sync.apply("sleepy", 0)
