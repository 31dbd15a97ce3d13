"""The collection loop: a policy answers every (task, sample) of a TaskSet for up to K turns; one record each.

:func:`collect` writes one :class:`~kernelgym.data.records.EpisodeRecord` row per finished episode to a JSONL
file through :class:`~kernelgym.data.writers.JsonlWriter` (one fsync-ed line per episode, so a crash loses at
most the episodes in flight), then converts the whole JSONL file to Parquet. With ``resume`` it skips the
episodes already in the file (key: task id + sample index). An episode whose policy raises, or one of whose
attempts the judge failed to judge (``EvalResult.judge_fault``: a sample to drop, not a verdict on the candidate),
is not written (it is counted as failed and retried by the next ``resume``).
"""

from __future__ import annotations

import json
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from kernelgym.data import chat
from kernelgym.data.policies import policy_name
from kernelgym.data.records import EpisodeRecord, arrow_schema, library_versions, row_key
from kernelgym.data.writers import JsonlWriter, jsonl_to_parquet, read_rows
from kernelgym.envs.kernel_env import KernelEnv
from kernelgym.evaluators import Evaluator, LocalEvaluator, as_evaluator
from kernelgym.hardware import require_device
from kernelgym.judge import policy as torch_use
from kernelgym.judge.backends import check_backend
from kernelgym.judge.profiles import get_profile
from kernelgym.progress import LiveCounts
from kernelgym.rewards import get_reward
from kernelgym.tasks import Task, TaskSet


@dataclass
class CollectStats:
    """What a :func:`collect` run did. ``planned`` counts this run's episodes (after resume and skips)."""

    jsonl: Path
    parquet: Path | None = None
    planned: int = 0
    already_done: int = 0
    finished: int = 0
    failed: int = 0
    compiled: int = 0
    correct: int = 0
    fast_1: int = 0
    skipped_tasks: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def add_row(self, row: dict) -> None:
        self.finished += 1
        self.compiled += row["compiled"]
        self.correct += row["correct"]
        self.fast_1 += row["fast_1"]

    def add_failure(self, key: str, exc: Exception) -> str:
        self.failed += 1
        self.errors.append(f"{key}: {type(exc).__name__}: {exc}")
        return self.errors[-1]

    def summary(self) -> str:
        return (f"{self.finished} episodes written ({self.compiled} compiled, {self.correct} correct, "
                f"{self.fast_1} fast_1), {self.failed} failed, {self.already_done} already in {self.jsonl}")


class JudgeFault(RuntimeError):
    """An attempt's verdict was the judge's own failure (``EvalResult.judge_fault``: flags ``judge_error``,
    ``aborted``), not the candidate's: the episode is a sample to drop (README), so :func:`collect` does not record
    it (counted failed; the next ``resume`` plays it again)."""


def run_episode(env: KernelEnv, policy: Callable[[dict], str], task: Task, sample: int, seed: int,
                policy_label: str, versions: dict[str, str], drop_judge_faults: bool = False) -> EpisodeRecord:
    """Play one episode of ``task`` with ``policy`` on ``env`` and return its record.

    The policy gets the observation plus ``messages`` (the chat so far), ``sample`` and ``seed``. Exceptions
    raised by the policy propagate (the episode is then not recorded). With ``drop_judge_faults`` an attempt
    whose verdict is the judge's failure ends the episode with :class:`JudgeFault`.
    """
    started = time.monotonic()
    obs, _ = env.reset(seed=seed, options={"task_id": task.id})
    messages = chat.start(obs["prompt"])
    record = EpisodeRecord(task_id=task.id, task_set=task.task_set, sample=sample, level=task.level,
                           category=task.category, backend=env.backend, policy=policy_label, seed=seed,
                           hardware=json.loads(obs["hardware"]), versions=dict(versions))
    while True:
        answer = policy({**obs, "messages": [dict(m) for m in messages], "sample": sample, "seed": seed})
        if not isinstance(answer, str):
            raise TypeError(f"the policy returned {type(answer).__name__}, not str")
        messages.append({"role": "assistant", "content": answer})
        obs, reward, terminated, truncated, info = env.step(answer)
        if drop_judge_faults and info.get("judge_fault"):
            result = info["result"]
            raise JudgeFault(f"turn {len(record.results) + 1}: the judge failed, not the candidate "
                             f"({result.get('status')}: {str(result.get('message', ''))[:160]})")
        record.actions.append(answer)
        record.feedback.append(obs["feedback"])
        record.results.append(info["result"])
        record.rewards.append(float(reward))
        if terminated or truncated:
            record.terminated, record.truncated = bool(terminated), bool(truncated)
            break
        messages.append({"role": "user",
                         "content": chat.feedback_message(obs["feedback"], len(record.results) + 1, env.max_turns)})
    record.messages = messages
    record.duration_s = round(time.monotonic() - started, 3)
    return record


class _ThreadEnvs:
    """One KernelEnv per thread, all on one shared evaluator."""

    def __init__(self, env_kwargs: dict, evaluator: Evaluator):
        self.env_kwargs, self.evaluator = env_kwargs, evaluator
        self._local = threading.local()

    def get(self) -> KernelEnv:
        env = getattr(self._local, "env", None)
        if env is None:
            env = self._local.env = KernelEnv(evaluator=self.evaluator, **self.env_kwargs)
        return env


def check_output(out: Path, resume: bool) -> None:
    """Raise ``FileExistsError`` when ``out`` holds episodes and ``resume`` is off (never append duplicates),
    ``IsADirectoryError`` when ``out`` is a folder (it was told to continue the "file" with resume, which then failed
    to open it), and ``ValueError`` when ``out`` ends in ``.parquet`` (the episodes were appended to it as JSONL,
    then the Parquet conversion replaced the file: every episode but the Parquet copy was lost, and a ``resume``
    read the Parquet bytes as damaged lines and collected everything again)."""
    if out.is_dir():
        raise IsADirectoryError(f"{out} is a folder: the output is a JSONL file, e.g. {out / 'episodes.jsonl'}")
    if out.suffix.lower() == ".parquet":  # the JSONL file was written there, then replaced by the Parquet file
        raise ValueError(f"{out} names a Parquet file: the output is the JSONL file (the Parquet file is written next "
                         f"to it, same stem): use {out.with_suffix('.jsonl')}")
    if out.exists() and out.stat().st_size > 0 and not resume:
        raise FileExistsError(f"{out} already exists; continue it with --resume (resume=True) "
                              "or choose another file")


def _refuse_other_files(out: Path, rows: list) -> None:
    """ValueError when a row of ``out`` is not an episode record (no ``task_id`` and integer ``sample``, its resume
    key): ``resume`` on a file another program wrote (an ``eval`` report's rows are records of files, not
    episodes, but carry both keys and are refused by :func:`_refuse_other_settings`) ended in a KeyError."""
    for number, row in enumerate(rows, start=1):
        try:
            row_key(row)
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"{out}: row {number} is not an episode record (it needs task_id and sample): resume "
                             f"continues a file written by kernelgym collect (or choose another file)") from None


def _refuse_other_settings(rows: list, tasks: TaskSet, backend: str, torch_policy: str, profile: str = "") -> None:
    """ValueError when a stored episode of a task of ``tasks`` was collected from another task set, for another
    backend, or judged under another torch policy or evaluation profile (``profile``: its name; empty: not
    checked): ``resume`` skips an episode by its (task id, sample) alone, so a run resumed with other settings kept
    the old run's verdicts as its own (a row judged under ``off`` in a file resumed under ``strict``; the folder
    evaluation's ``resume`` was mended the same way, ``settings_of``). The reward and the turns are not in the
    stored results and are not checked."""
    by_id = {t.id: t for t in tasks}
    for row in rows:
        task = by_id.get(str(row.get("task_id")))
        if task is None:
            continue
        found = []
        if row.get("task_set") and task.task_set and row["task_set"] != task.task_set:
            found.append(f"task set {row['task_set']!r}, not {task.task_set!r}")
        if row.get("backend") != backend:
            found.append(f"backend {row.get('backend')!r}, not {backend!r}")
        for key, wanted, named in (("torch_policy", torch_policy, "torch policy"), ("profile", profile, "profile")):
            seen = set()  # a result that names none (a record older than the field) is taken as it is
            for text in row.get("results") or []:
                try:
                    seen.add(json.loads(text).get(key))
                except (TypeError, ValueError, AttributeError):
                    continue
            seen.discard(None)
            if wanted and seen - {wanted}:
                found.append(f"{named} {', '.join(sorted(map(str, seen - {wanted})))}, not {wanted!r}")
        if found:
            raise ValueError(f"episode {row.get('task_id')}#{row.get('sample')} was collected with {'; '.join(found)}: "
                             f"resume continues a file under the settings it was collected with (or choose another "
                             f"file)")


def collect(policy: Callable[[dict], str], tasks: TaskSet, out: str | Path, *, samples: int = 1,
            max_turns: int = 1, backend: str = "triton", profile: str = "quick", reward: Any = "speedup",
            device: str | None = None, seed: int = 0, resume: bool = False, jobs: int = 1,
            evaluator: Any = None, cache_dir: str | Path | None = None, progress: bool = True,
            parquet: bool = True, torch_policy: str = torch_use.DEFAULT) -> CollectStats:
    """Collect ``samples`` episodes of up to ``max_turns`` turns for every task in ``tasks``.

    Args:
        policy: ``policy(observation) -> str`` (see :mod:`kernelgym.data.policies`); with ``jobs > 1`` it is
            called from several threads at once. If it has ``has(task_id)``, tasks it cannot answer are skipped.
        tasks: the tasks to play.
        out: the JSONL file; the Parquet file is written next to it (same stem) at the end.
        samples, max_turns: N samples per task, K turns per episode.
        backend, profile, reward, device, torch_policy: as for :class:`~kernelgym.envs.kernel_env.KernelEnv`
            (every result, and so every record's ``results``, carries ``torch_policy`` and ``kernel_coverage``);
            an unknown one is a ValueError (an unavailable device a ``DeviceUnavailable``) before anything runs.
        seed: episode ``s`` of a task is reset with ``seed + s``.
        resume: continue an existing file, skipping finished (task id, sample) pairs. Without it an existing
            non-empty ``out`` is an error (``FileExistsError``), so a file never holds an episode twice. A file
            holding rows that are not episode records, or episodes collected under other settings, is a ValueError.
        jobs: episodes played at once, each thread with its own environment, all on one evaluator.
        evaluator: a :class:`~kernelgym.evaluators.Evaluator` (e.g. a RayEvalPool; the caller closes it); default:
            a :class:`~kernelgym.evaluators.LocalEvaluator` with ``jobs`` threads, closed at the end. A plain Judge
            is accepted with ``jobs=1`` only (it evaluates one candidate at a time); anything else is a TypeError.
        cache_dir: the Judges' baseline cache folder.
        progress: show a progress bar with live counts on stderr.
        parquet: convert the JSONL file to Parquet at the end.
    """
    out = Path(out)
    if samples < 1 or max_turns < 1 or jobs < 1:
        raise ValueError("samples, max_turns and jobs must be at least 1")
    check_output(out, resume)
    # the settings every episode's env is made with fail here, once, not once per episode (each counted failed)
    get_reward(reward)
    torch_use.check(torch_policy)
    check_backend(backend)
    profile_name = get_profile(profile).name
    if evaluator is None:
        shared: Evaluator = LocalEvaluator(device=require_device(device), cache_dir=cache_dir, max_workers=jobs)
    else:
        if jobs > 1 and not isinstance(evaluator, Evaluator):
            from kernelgym.judge.runner import Judge

            if isinstance(evaluator, Judge):
                raise ValueError("a Judge evaluates one candidate at a time: leave evaluator unset with jobs > 1")
        shared = as_evaluator(evaluator)
    owned = shared is not evaluator  # made here (or a Judge's wrapper): closed at the end
    stats = CollectStats(jsonl=out)
    envs = _ThreadEnvs(dict(tasks=tasks, backend=backend, max_turns=max_turns, reward=reward, profile=profile,
                            device=device, torch_policy=torch_policy), shared)
    try:
        writer = JsonlWriter.open(out)  # repairs a damaged last line first (with a warning)
    except BaseException:
        if owned:
            shared.close()
        raise
    try:
        stored = read_rows(out).rows
        _refuse_other_files(out, stored)
        _refuse_other_settings(stored, tasks, backend, torch_policy, profile_name)
        done = {row_key(r) for r in stored}
        can_answer = getattr(policy, "has", lambda task_id: True)
        playable = [t for t in tasks if can_answer(t.id)]
        stats.skipped_tasks = [t.id for t in tasks if t not in playable]
        work = [(t, s) for t in playable for s in range(samples)]
        pending = [(t, s) for t, s in work if (t.id, s) not in done]
        stats.already_done, stats.planned = len(work) - len(pending), len(pending)
        label, versions = policy_name(policy), library_versions()

        def play(task: Task, sample: int) -> EpisodeRecord:
            return run_episode(envs.get(), policy, task, sample, seed + sample, label, versions,
                               drop_judge_faults=True)

        with LiveCounts(len(pending), "collect", ("compiled", "correct", "fast_1", "failed"), progress) as bar, \
                ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="kernelgym-collect") as pool:
            futures = {pool.submit(play, t, s): f"{t.id}#{s}" for t, s in pending}
            try:
                for future in as_completed(futures):
                    try:
                        row = future.result().to_row()
                    except Exception as exc:  # the policy or the judge failed: not recorded, retried on resume
                        error = stats.add_failure(futures[future], exc)
                        warnings.warn(f"episode {error} (not recorded)", RuntimeWarning, stacklevel=2)
                        bar.advance(failed=1)
                        continue
                    writer.write(row)
                    stats.add_row(row)
                    bar.advance(compiled=row["compiled"], correct=row["correct"], fast_1=row["fast_1"])
            except BaseException:
                for future in futures:
                    future.cancel()
                if owned:  # end the evaluations in flight, so the episodes running now fail at once
                    shared.close(abort=True)
                raise
    finally:
        writer.close()
        if owned:
            shared.close()
    if parquet:
        stats.parquet = jsonl_to_parquet(out, schema=arrow_schema())
    return stats
