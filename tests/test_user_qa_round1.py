"""A new user's mistakes, round 1: bad or unusual input gets a clear error at once, before any candidate runs,
instead of a late error, a traceback, silent wrong behaviour or work thrown away."""

from __future__ import annotations

import json

import pytest

from conftest import GOOD, InstantEvaluator
from kernelgym import cli
from kernelgym.envs import KernelEnv
from kernelgym.envs.vector import KernelVectorEnv
from kernelgym.rewards import get_reward
from kernelgym.tasks import TaskError, load_tasks
from kernelgym.testing.candidates import TEST_TASKS

TASK = "L1/1_scaled_relu"


def make_env(**kwargs) -> KernelEnv:
    return KernelEnv(tasks=str(TEST_TASKS), evaluator=InstantEvaluator(), **kwargs)


# -- KernelEnv --------------------------------------------------------------------------------------------------
def test_an_unknown_profile_is_refused_when_the_env_is_made_not_in_every_step():
    """``profile="nope"`` was accepted by the constructor; every ``step`` then raised ValueError, though ``step``
    raises only on a finished episode or before ``reset``."""
    with pytest.raises(ValueError, match="unknown evaluation profile 'nope'"):
        make_env(profile="nope")


def test_a_nan_target_speedup_is_refused():
    """No speedup is ``>= nan``: a correct kernel on a GPU never ended the episode."""
    with pytest.raises(ValueError, match="target_speedup"):
        make_env(target_speedup=float("nan"))


def test_reset_options_that_are_not_a_dict_are_a_type_error():
    """``reset(options="L1/...")`` was silently ignored (``"task_id" in "L1/..."`` is a substring test) and a
    random task was played."""
    env = make_env()
    with pytest.raises(TypeError, match="options must be a dict"):
        env.reset(options=TASK)


def test_reset_with_task_id_none_picks_a_task_as_without_one():
    """``options={"task_id": None}`` (an optional command-line value passed on) raised AttributeError."""
    env = make_env()
    obs, info = env.reset(seed=0, options={"task_id": None})
    assert info["task_id"] == TASK and obs["task_id"] == TASK


def test_one_task_id_category_or_level_given_alone_is_one_name():
    """``task_ids="L1/..."`` was read letter by letter (``unknown task id 'L'``), ``categories="Activation"`` as
    ten one-letter categories, ``levels=1`` was a TypeError ('int' object is not iterable)."""
    tasks = load_tasks(TEST_TASKS)
    assert tasks.select(ids=TASK).ids == [TASK]
    assert tasks.select(categories="Activation").ids == [TASK]
    assert tasks.select(levels=1).ids == [TASK]
    assert make_env(task_ids=TASK, levels=1, categories="Activation").tasks.ids == [TASK]


def test_a_task_id_that_is_not_a_string_is_a_task_error():
    with pytest.raises(TaskError, match="a task id is a string"):
        load_tasks(TEST_TASKS).get(None)


# -- rewards ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("spec, words", [("correct:1", "takes no argument"), ("fast_p:abc", "is not a number"),
                                         ("speedup_coverage:x", "is not a number"), ("fast_p:nan", "finite")])
def test_a_reward_spec_with_a_bad_argument_is_a_value_error(spec, words):
    """``"correct:1"`` was a TypeError (a traceback from ``kernelgym collect --reward correct:1``), ``"fast_p:abc"``
    said only "could not convert string to float", ``"fast_p:nan"`` was accepted and never paid."""
    with pytest.raises(ValueError, match=words):
        get_reward(spec)


def test_collect_with_a_reward_taking_no_argument_is_a_one_line_error(tmp_path, capsys):
    out = tmp_path / "c.jsonl"
    policy = tmp_path / "policy.py"
    policy.write_text("def answer(observation):\n    return ''\n")
    code = cli.main(["collect", "--out", str(out), "--tasks", str(TEST_TASKS), "--policy", f"{policy}:answer",
                     "--reward", "correct:1", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("kernelgym: error:") and "takes no argument" in err, err
    assert not out.exists() or out.stat().st_size == 0


# -- collect ----------------------------------------------------------------------------------------------------
def _policy(observation):
    return GOOD


@pytest.mark.parametrize("kwargs, error, words", [
    (dict(backend="cutlass"), ValueError, "backend must be"),
    (dict(profile="nope"), ValueError, "unknown evaluation profile"),
])
def test_collect_refuses_bad_settings_before_playing(tmp_path, kwargs, error, words):
    """A bad backend failed every episode one by one (each counted failed with a warning); a bad profile was found
    after the output file had been made."""
    from kernelgym.data import collect

    out = tmp_path / "c.jsonl"
    with pytest.raises(error, match=words):
        collect(_policy, load_tasks(TEST_TASKS), out, evaluator=InstantEvaluator(), progress=False, parquet=False,
                **kwargs)
    assert not out.exists()


def test_collect_on_an_unavailable_device_is_device_unavailable(tmp_path):
    """``collect(device="cuda")`` on a CPU-only torch raised torch's AssertionError ("Torch not compiled with CUDA
    enabled"), not the one-line DeviceUnavailable that KernelEnv gives."""
    import torch

    from kernelgym.data import collect
    from kernelgym.hardware import DeviceUnavailable

    if torch.cuda.is_available():
        pytest.skip("a GPU is available")
    with pytest.raises(DeviceUnavailable):
        collect(_policy, load_tasks(TEST_TASKS), tmp_path / "c.jsonl", device="cuda", progress=False, parquet=False)


def test_resume_on_a_file_that_holds_no_episode_records_is_a_clear_error(tmp_path):
    """``kernelgym collect --resume`` on a JSONL file another program wrote ended in ``KeyError: 'task_id'``."""
    from kernelgym.data import collect

    out = tmp_path / "other.jsonl"
    out.write_text(json.dumps({"prompt": "x", "answer": "y"}) + "\n")
    before = out.read_bytes()
    with pytest.raises(ValueError, match="not an episode record"):
        collect(_policy, load_tasks(TEST_TASKS), out, resume=True, evaluator=InstantEvaluator(), progress=False,
                parquet=False)
    assert out.read_bytes() == before


def test_collect_jobs_zero_is_refused(tmp_path, capsys):
    """``--jobs 0`` silently ran the default number of jobs (``args.jobs or ...``); ``--jobs -1`` was refused."""
    code = cli.main(["collect", "--out", str(tmp_path / "c.jsonl"), "--tasks", str(TEST_TASKS), "--jobs", "0",
                     "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and "--jobs must be at least 1" in err, err
    assert not (tmp_path / "c.jsonl").exists()


@pytest.mark.parametrize("resume", [[], ["--resume"]])
def test_collect_out_naming_a_folder_says_so(tmp_path, capsys, resume):
    """``--out FOLDER`` said "FOLDER already exists; continue it with --resume", and ``--resume`` then failed with
    "[Errno 21] Is a directory"."""
    code = cli.main(["collect", "--out", str(tmp_path), "--tasks", str(TEST_TASKS), "--no-progress", *resume])
    err = capsys.readouterr().err
    assert code == 2 and "is a folder" in err and "--resume" not in err, err


# -- eval DIR ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("option", [["--k", "0"], ["--p", "nan"], ["--jobs", "0"]])
def test_eval_refuses_bad_report_options_before_evaluating(tmp_path, capsys, option):
    """``--k 0`` was found only when the report was made: every file had been evaluated (hours on a big folder),
    then the command ended with a pass@k error and no report; ``--p nan`` made a ``fast_nan`` column."""
    gens = tmp_path / "gens" / "L1"
    gens.mkdir(parents=True)
    (gens / "1_scaled_relu.py").write_text(GOOD)
    out = tmp_path / "report"
    code = cli.main(["eval", str(tmp_path / "gens"), "--tasks", str(TEST_TASKS), "--out", str(out), "--device",
                     "cpu", "--cache-dir", str(tmp_path / "cache"), "--no-progress", *option])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("kernelgym: error:") and option[0] in err, err
    assert not (out / "results.jsonl").exists()  # nothing was evaluated


def test_eval_out_naming_a_file_says_so(tmp_path, capsys):
    """``--out FILE`` said only "[Errno 17] File exists"."""
    gens = tmp_path / "gens" / "L1"
    gens.mkdir(parents=True)
    (gens / "1_scaled_relu.py").write_text(GOOD)
    (tmp_path / "report").write_text("not a folder")
    code = cli.main(["eval", str(tmp_path / "gens"), "--tasks", str(TEST_TASKS), "--out", str(tmp_path / "report"),
                     "--device", "cpu", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and "is a file" in err and "folder the reports" in err, err


# -- the vector env ---------------------------------------------------------------------------------------------
def test_vector_env_refuses_no_sub_envs():
    """``KernelVectorEnv(0, pool)`` was an IndexError."""
    with pytest.raises(ValueError, match="num_envs must be at least 1"):
        KernelVectorEnv(0, InstantEvaluator(), tasks=str(TEST_TASKS))


def test_vector_env_refuses_one_string_as_its_actions_and_a_short_seed_list():
    """``step("ab")`` on two sub-envs stepped them with ``"a"`` and ``"b"``; ``reset(seed=[1])`` reset only the
    first sub-env, then failed with "Output array is the wrong shape"."""
    venv = KernelVectorEnv(2, InstantEvaluator(), tasks=str(TEST_TASKS))
    try:
        with pytest.raises(ValueError, match="expected 2 seeds"):
            venv.reset(seed=[1])
        venv.reset(seed=0)
        with pytest.raises(TypeError, match="sequence of 2 strings"):
            venv.step("ab")
        _, rewards, _, _, infos = venv.step([GOOD, "no code"])
        assert [i["result"]["status"] for i in infos["per_env"]] == ["ok", "incorrect"]
    finally:
        venv.close()


# -- trainer adapters -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, words", [(dict(backend="Triton"), "backend must be"),
                                           (dict(profile="nope"), "unknown evaluation profile")])
def test_the_scorer_refuses_bad_settings_when_made(kwargs, words):
    """``Scorer(backend="Triton")`` (``KERNELGYM_BACKEND=Triton``) scored every completion 0 (compile_error
    "unknown backend") for the whole run; a bad profile failed at the first batch."""
    from kernelgym.integrations.scorer import Scorer

    with pytest.raises(ValueError, match=words):
        Scorer(tasks=str(TEST_TASKS), evaluator=InstantEvaluator(), **kwargs)


# -- reported by round 1, fixed in round 2 ----------------------------------------------------------------------
def test_eval_resume_replaces_the_line_of_a_changed_file(tmp_path):
    """``--resume`` after a file changed appended a second line for it to ``results.jsonl``, which the docs say
    holds one line per file; the other files' lines must stay."""
    from kernelgym.data.folder_eval import evaluate_folder
    from kernelgym.data.writers import read_rows

    gens = tmp_path / "gens" / "L1"
    (gens / "1_scaled_relu").mkdir(parents=True)
    (gens / "1_scaled_relu" / "0.py").write_text(GOOD)
    (gens / "1_scaled_relu" / "1.py").write_text(GOOD)
    tasks, out = load_tasks(str(TEST_TASKS)), tmp_path / "out"
    evaluate_folder(tmp_path / "gens", tasks, out, evaluator=InstantEvaluator(), progress=False)
    (gens / "1_scaled_relu" / "1.py").write_text("# changed\n" + GOOD.replace("* 2.0 + 1.0", "* 3.0"))
    evaluator = InstantEvaluator()
    evaluation = evaluate_folder(tmp_path / "gens", tasks, out, evaluator=evaluator, progress=False, resume=True)
    rows = read_rows(out / "results.jsonl").rows
    assert len(evaluator.policies) == 1  # only the changed file was scored again
    assert sorted(r["file"] for r in rows) == ["L1/1_scaled_relu/0.py", "L1/1_scaled_relu/1.py"], rows
    status = {r["file"]: r["result"]["status"] for r in rows}
    assert status == {"L1/1_scaled_relu/0.py": "ok", "L1/1_scaled_relu/1.py": "incorrect"}
    assert evaluation.report["files"] == 2 and not list(out.glob(".results.jsonl.tmp-*"))


@pytest.mark.parametrize("inside", ["", "L1"])
def test_eval_out_holding_the_candidates_is_refused_up_front(tmp_path, capsys, inside):
    """``--out DIR`` (or ``DIR/L1``, where the candidates are) skipped every candidate and said "no candidate file
    ... answers a known task"; now it is refused before anything is evaluated or written."""
    gens = tmp_path / "gens" / "L1"
    gens.mkdir(parents=True)
    (gens / "1_scaled_relu.py").write_text(GOOD)
    out = tmp_path / "gens" / inside
    code = cli.main(["eval", str(tmp_path / "gens"), "--tasks", str(TEST_TASKS), "--out", str(out), "--device",
                     "cpu", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("kernelgym: error:") and len(err.strip().splitlines()) == 1, err
    assert "holds candidate files" in err and "L1/1_scaled_relu.py" in err and "answers a known task" not in err
    assert not (out / "results.jsonl").exists() and (gens / "1_scaled_relu.py").read_text() == GOOD


def test_eval_out_inside_dir_without_candidates_still_works(tmp_path):
    from kernelgym.data.folder_eval import evaluate_folder

    gens = tmp_path / "gens" / "L1"
    gens.mkdir(parents=True)
    (gens / "1_scaled_relu.py").write_text(GOOD)
    evaluation = evaluate_folder(tmp_path / "gens", load_tasks(str(TEST_TASKS)), tmp_path / "gens" / "report",
                                 evaluator=InstantEvaluator(), progress=False)
    assert evaluation.report["files"] == 1 and evaluation.report["overall"]["correct"] == 1


@pytest.mark.parametrize("source", ["path", "folder", "taskset", "kernelbench_path"])
def test_kernelbench_ids_refuse_the_bundled_suite(source, monkeypatch):
    """``gym.make("KernelBench-L1-v0", tasks=<the bundled suite>)`` labelled kernelgym's problems ``kernelbench``
    and served the extra set (X/...) as level 1."""
    import gymnasium as gym

    from kernelgym.tasks.task import BUNDLED_TASKS

    kwargs = {"path": {"tasks": str(BUNDLED_TASKS)}, "folder": {"tasks": str(BUNDLED_TASKS / "level1")},
              "taskset": {"tasks": load_tasks()}, "kernelbench_path": {}}[source]
    if source == "kernelbench_path":
        monkeypatch.setenv("KERNELBENCH_PATH", str(BUNDLED_TASKS))
    with pytest.raises(TaskError, match="bundled suite, not KernelBench's problems.*use KernelGym-L1-v0"):
        gym.make("KernelBench-L1-v0", evaluator=InstantEvaluator(), **kwargs)
    env = gym.make("KernelGym-L1-v0", evaluator=InstantEvaluator())  # the id the message names
    assert {t.task_set for t in env.unwrapped.tasks} == {"kernelgym"}
    assert all(t.id.startswith("L1/") for t in env.unwrapped.tasks)
