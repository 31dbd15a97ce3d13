"""The runner's view of a worker's processes (kernelgym.judge.process): /proc read with the GIL held, the tree found
and signalled whatever session its processes put themselves in, and a thaw that resumes what the freeze stopped."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kernelgym.judge import process
from kernelgym.judge.launch import StartedWorker

# a parent that starts a child in a session of its own (setsid: out of the parent's process group), then sleeps
TREE = ("import subprocess, sys, time; "
        "c = subprocess.Popen(['sleep', '60'], start_new_session=True); "
        "print(c.pid, flush=True); time.sleep(60)")


def state(which) -> str | None:
    """The state letter of process ``which`` (a pid, or ``"PID/task/TID"`` for one of its threads)."""
    text = process.read_proc(f"/proc/{which}/stat")
    return None if text is None else text.rsplit(")", 1)[1].split()[0]


def worker_of(proc, tmp_path) -> StartedWorker:
    """``proc`` as the runner holds a worker (only its process matters to freezing)."""
    return StartedWorker(proc=proc, read_fd=-1, scratch=Path(tmp_path), xfer=Path(tmp_path), log_fd=-1,
                         sandboxed=False)


def wait_for_states(pids, wanted: set, timeout: float = 5.0) -> set:
    """The states of ``pids`` once they are all in ``wanted`` (signals arrive asynchronously), or as they are at
    the timeout."""
    end = time.monotonic() + timeout
    while True:
        states = {state(pid) for pid in pids}
        if states <= wanted or time.monotonic() > end:
            return states
        time.sleep(0.02)


@pytest.fixture
def tree():
    parent = subprocess.Popen([sys.executable, "-c", TREE], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    try:
        yield parent, child
    finally:
        for pid in (child, parent.pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        parent.wait()


def test_read_proc_reads_a_whole_file_of_several_chunks_and_none_when_it_is_gone(tmp_path):
    text = "".join(f"line {i} {'x' * (i % 50)}\n" for i in range(600))  # well over one 4096-byte read
    path = tmp_path / "big"
    path.write_text(text)
    assert len(text) > 3 * process._READ_CHUNK
    assert process.read_proc(str(path)) == text
    assert process.read_proc(str(tmp_path / "missing")) is None
    assert process.read_proc(f"/proc/{os.getpid()}/stat").startswith(f"{os.getpid()} (")


def test_the_tree_is_found_and_stopped_across_sessions_and_the_thaw_needs_no_scan(tree, monkeypatch, tmp_path):
    parent, child = tree
    live = process.live_processes()
    assert live[child][0] == parent.pid and live[child][1] != live[parent.pid][1]  # another process group
    assert set(process.descendants(parent.pid)) >= {parent.pid, child}
    worker = worker_of(parent, tmp_path)
    worker.freeze(True)
    assert wait_for_states([parent.pid, child], {"T"}) == {"T"}

    def no_scan(root):
        raise AssertionError("the thaw scanned /proc")

    monkeypatch.setattr(process, "descendants", no_scan)
    worker.freeze(False)
    assert "T" not in wait_for_states([parent.pid, child], {"S", "R"})
    monkeypatch.undo()
    worker.freeze(False)  # a thaw with no freeze before it finds the tree itself
    assert "T" not in wait_for_states([parent.pid, child], {"S", "R"})


def test_a_thaw_without_a_freeze_before_it_resumes_every_process_of_the_tree(tree, tmp_path):
    parent, child = tree
    for pid in (parent.pid, child):
        os.kill(pid, signal.SIGSTOP)
    assert wait_for_states([parent.pid, child], {"T"}) == {"T"}
    worker = worker_of(parent, tmp_path)
    worker.freeze(False)
    assert "T" not in wait_for_states([parent.pid, child], {"S", "R"})


def test_read_link_reads_a_links_target_and_none_when_there_is_no_link(tmp_path):
    target = tmp_path / "target file"
    target.write_text("x")
    (tmp_path / "link").symlink_to(target)
    assert process.read_link(str(tmp_path / "link")) == str(target)
    assert process.read_link(str(tmp_path / "missing")) is None
    assert process.read_link(str(target)) is None  # not a link


def test_a_memory_file_held_open_counts_as_the_holders_memory_and_only_while_it_is_held():
    holder = subprocess.Popen([sys.executable, "-c",
                               "import os, sys\n"
                               "fd = os.memfd_create('kept')\n"
                               "os.write(fd, b'a' * (4 << 20))\n"
                               "print(flush=True)\n"
                               "sys.stdin.readline()\n"
                               "os.close(fd)\n"
                               "print(flush=True)\n"
                               "sys.stdin.readline()\n"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        holder.stdout.readline()
        assert process.held_file_bytes([holder.pid]) >= 4 << 20
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.stdout.readline()  # closed now
        assert process.held_file_bytes([holder.pid]) < 4 << 20
    finally:
        holder.kill()
        holder.wait()


# a process whose main thread ends (pthread_exit) while another of its threads runs on, holding 64 MiB: /proc shows
# it as a zombie; the thread prints its id once the main thread has ended
HEADLESS = ("import ctypes, threading, time\n"
            "def run():\n"
            "    held = bytearray(64 << 20)\n"
            "    for i in range(0, len(held), 4096): held[i] = 1\n"
            "    time.sleep(0.3)\n"
            "    print(threading.get_native_id(), flush=True)\n"
            "    while True: sum(range(1000))\n"
            "threading.Thread(target=run).start()\n"
            "ctypes.CDLL(None).pthread_exit(None)\n")


def test_a_process_whose_main_thread_ended_is_still_found_stopped_and_counted(tmp_path):
    """A red-team finding: the main thread's zombie state hid the whole process (and its children) from every scan,
    so a freeze left its other threads running and its memory and threads went uncounted."""
    script = tmp_path / "headless.py"
    script.write_text(HEADLESS)
    root = subprocess.Popen(["bash", "-c", f"{sys.executable} {script} & wait"], stdout=subprocess.PIPE, text=True)
    try:
        tid = int(root.stdout.readline())
        child = next(pid for pid, (parent, _) in process.live_processes().items() if parent == root.pid)
        assert state(child) == "Z" and process.live_thread(child) == tid
        tree = process.descendants(root.pid)
        assert child in tree
        rss, threads = process.tree_usage(tree)
        assert rss >= 64 << 20 and threads >= 2
        stopped = process.signal_tree(root.pid, signal.SIGSTOP)
        assert child in stopped
        assert wait_for_states([f"{child}/task/{tid}"], {"T"}) == {"T"}
        process.signal_each(stopped, signal.SIGCONT)
        assert "T" not in wait_for_states([f"{child}/task/{tid}"], {"R", "S"})
    finally:
        process.signal_tree(root.pid, signal.SIGKILL)
        root.wait()


def test_a_link_target_longer_than_the_buffer_is_read_whole(tmp_path, monkeypatch):
    target = "/dev/shm/" + "d" * 300 + " (deleted)"
    (tmp_path / "link").symlink_to(target)
    monkeypatch.setattr(process, "_LINK_MAX", 64)  # as a deleted file's path of PATH_MAX overflows the real one
    assert process.read_link(str(tmp_path / "link")) == target
