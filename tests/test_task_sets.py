"""Task sets with honest names: KernelBench-* ids serve KernelBench's own problems, KernelGym-* the bundled suite, and
every task, env info, record and report says which set a task is from.

KernelBench's problems are never downloaded here: the tests write small folders in KernelBench's own format, and the
Hugging Face path is checked for real where it must fail (offline, empty cache) in a subprocess.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import gymnasium as gym
import pytest

import kernelgym
from conftest import DATA, GOOD, InstantEvaluator
from kernelgym.data import EpisodeRecord, collect, read_rows
from kernelgym.data.records import arrow_schema
from kernelgym.data.folder_eval import evaluate_folder
from kernelgym.judge.result import EvalResult
from kernelgym.tasks import Task, TaskError, TaskSetUnavailable, load_kernelbench, load_tasks

ROOT = Path(__file__).resolve().parents[1]

# Files as KernelBench writes them: no KERNELGYM dict, lower-case module-level size constants.
MATMUL = textwrap.dedent('''
    import torch
    import torch.nn as nn

    class Model(nn.Module):
        """Simple model that performs a single square matrix multiplication (C = A * B)"""
        def __init__(self):
            super(Model, self).__init__()

        def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
            return torch.matmul(A, B)

    N = 64

    def get_inputs():
        A = torch.randn(N, N)
        B = torch.randn(N, N)
        return [A, B]

    def get_init_inputs():
        return []  # No special initialization inputs needed
''')

RELU = textwrap.dedent('''
    import torch
    import torch.nn as nn

    class Model(nn.Module):
        """Simple model that performs a ReLU activation."""
        def __init__(self):
            super(Model, self).__init__()

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.relu(x)

    batch_size = 16
    dim = 1024

    def get_inputs():
        x = torch.randn(batch_size, dim)
        return [x]

    def get_init_inputs():
        return []  # No special initialization inputs needed
''')

CONV_RELU = textwrap.dedent('''
    import torch
    import torch.nn as nn

    class Model(nn.Module):
        """Simple model that performs a convolution, applies ReLU, and adds a bias term."""
        def __init__(self, in_channels, out_channels, kernel_size, bias_shape):
            super(Model, self).__init__()
            self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
            self.bias = nn.Parameter(torch.randn(bias_shape))

        def forward(self, x):
            x = self.conv(x)
            x = torch.relu(x)
            x = x + self.bias
            return x

    batch_size = 4
    in_channels = 3
    out_channels = 8
    height, width = 16, 16
    kernel_size = 3
    bias_shape = (out_channels, 1, 1)

    def get_inputs():
        return [torch.randn(batch_size, in_channels, height, width)]

    def get_init_inputs():
        return [in_channels, out_channels, kernel_size, bias_shape]
''')

MLP = textwrap.dedent('''
    import torch
    import torch.nn as nn

    class Model(nn.Module):
        def __init__(self, input_size, layer_sizes, output_size):
            super(Model, self).__init__()
            layers = []
            current = input_size
            for size in layer_sizes:
                layers += [nn.Linear(current, size), nn.ReLU()]
                current = size
            layers.append(nn.Linear(current, output_size))
            self.network = nn.Sequential(*layers)

        def forward(self, x):
            return self.network(x)

    batch_size = 2
    input_size = 32
    layer_sizes = [16, 8]
    output_size = 4

    def get_inputs():
        return [torch.randn(batch_size, input_size)]

    def get_init_inputs():
        return [input_size, layer_sizes, output_size]
''')

LEVEL1 = ["L1/1_Square_matrix_multiplication_", "L1/19_ReLU"]
LEVEL2 = ["L2/1_Conv2D_ReLU_BiasAdd"]
LEVEL3 = ["L3/1_MLP"]


def kernelbench_checkout(root: Path) -> Path:
    """A KernelBench checkout in miniature: its problems under KernelBench/level<N>/, other files around them."""
    files = {"level1/1_Square_matrix_multiplication_.py": MATMUL, "level1/19_ReLU.py": RELU,
             "level2/1_Conv2D_ReLU_BiasAdd.py": CONV_RELU, "level3/1_MLP.py": MLP,
             "level4/1_hf_model.py": MLP}
    for name, text in files.items():
        path = root / "KernelBench" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / "setup.py").write_text("from setuptools import setup\nsetup()\n")
    (root / "src").mkdir()
    (root / "src" / "eval.py").write_text("print('not a task')\n")
    return root


def ids(env) -> list[str]:
    return env.unwrapped.tasks.ids


# -- KernelBench ids: KernelBench's own problems ------------------------------------------------------------
def test_kernelbench_ids_load_a_checkout_given_by_tasks(tmp_path):
    root = kernelbench_checkout(tmp_path / "kb")
    env = gym.make("KernelBench-L1-v0", tasks=str(root), evaluator=InstantEvaluator())
    assert ids(env) == LEVEL1
    assert {t.task_set for t in env.unwrapped.tasks} == {"kernelbench"}
    task = env.unwrapped.tasks.get("L1/19_ReLU")
    assert task.level == 1 and task.category == "Activation" and task.small == {}
    module = task.load_module()
    assert module.Model(*module.get_init_inputs())(*module.get_inputs()).shape == (16, 1024)


def test_kernelbench_ids_load_the_checkout_named_by_kernelbench_path(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELBENCH_PATH", str(kernelbench_checkout(tmp_path / "kb")))
    assert ids(gym.make("KernelBench-L2-v0", evaluator=InstantEvaluator())) == LEVEL2
    assert ids(gym.make("KernelBench-L3-v0", evaluator=InstantEvaluator())) == LEVEL3
    # tasks= wins over the variable
    other = tmp_path / "other" / "level1"
    other.mkdir(parents=True)
    (other / "7_Only_one.py").write_text(RELU)
    env = gym.make("KernelBench-L1-v0", tasks=str(other.parent), evaluator=InstantEvaluator())
    assert ids(env) == ["L1/7_Only_one"] and env.unwrapped.tasks[0].task_set == "kernelbench"


def test_kernelbench_path_that_does_not_exist_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELBENCH_PATH", str(tmp_path / "nowhere"))
    with pytest.raises(TaskError, match="KERNELBENCH_PATH=.*nowhere: no such folder"):
        gym.make("KernelBench-L1-v0", evaluator=InstantEvaluator())


def test_kernelbench_levels_filter_and_the_all_levels_id_stops_at_level_3(tmp_path):
    root = str(kernelbench_checkout(tmp_path / "kb"))
    assert ids(gym.make("KernelBench-L2-v0", tasks=root, evaluator=InstantEvaluator())) == LEVEL2
    every = gym.make("KernelBench-v0", tasks=root, evaluator=InstantEvaluator())
    assert ids(every) == LEVEL1 + LEVEL2 + LEVEL3  # level 4 (Hugging Face models) is left out
    narrowed = gym.make("KernelBench-v0", tasks=root, levels=[1, 3], evaluator=InstantEvaluator())
    assert ids(narrowed) == LEVEL1 + LEVEL3
    assert load_kernelbench(root, levels=[4]).ids == ["L4/1_hf_model"]
    assert load_kernelbench(Path(root) / "KernelBench", levels=[2]).ids == LEVEL2  # the problems folder itself


def test_kernelbench_ids_load_a_parquet_in_kernelbench_columns(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"code": [RELU, CONV_RELU], "level": [1, 2], "problem_id": [19, 1],
                             "name": ["19_ReLU.py", "1_Conv2D_ReLU_BiasAdd.py"]}), tmp_path / "level_all.parquet")
    env = gym.make("KernelBench-L2-v0", tasks=str(tmp_path / "level_all.parquet"), evaluator=InstantEvaluator())
    assert ids(env) == LEVEL2 and env.unwrapped.tasks[0].task_set == "kernelbench"


def _offline_env(tmp_path: Path) -> dict:
    """This process's environment with no KernelBench path and Hugging Face offline on an empty cache."""
    env = {k: v for k, v in os.environ.items() if k != "KERNELBENCH_PATH"}
    hf = tmp_path / "hf-empty"
    env.update(HF_HOME=str(hf), HF_DATASETS_CACHE=str(hf / "datasets"), HF_HUB_CACHE=str(hf / "hub"),
               HUGGINGFACE_HUB_CACHE=str(hf / "hub"), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1",
               PYTHONPATH=str(ROOT))
    return env


@pytest.mark.parametrize("env_id, bundled", [("KernelBench-L2-v0", "KernelGym-L2-v0"),
                                             ("KernelBench-v0", "KernelGym-v0")])
def test_without_path_or_reachable_dataset_gym_make_fails_with_one_line(tmp_path, env_id, bundled):
    code = f"import gymnasium as gym, kernelgym\ngym.make({env_id!r}, device='cpu')\n"
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=_offline_env(tmp_path),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("kernelgym.tasks.TaskSetUnavailable: KernelBench's problems are not available"), last
    for hint in ("KERNELBENCH_PATH", "tasks=PATH", "pip install datasets", "online once",
                 "ScalingIntelligence/KernelBench", bundled):
        assert hint in last, (hint, last)
    assert last.endswith(bundled)  # the whole message is this one line


def test_unavailable_is_a_task_error_so_the_cli_reports_it_in_one_line():
    assert issubclass(TaskSetUnavailable, TaskError) and kernelgym.TaskSetUnavailable is TaskSetUnavailable


# -- KernelGym ids: the bundled suite ---------------------------------------------------------------------
def test_kernelgym_ids_serve_the_bundled_suite():
    bundled = load_tasks()
    assert {t.task_set for t in bundled} == {"kernelgym"}
    for level in (1, 2, 3):
        env = gym.make(f"KernelGym-L{level}-v0", evaluator=InstantEvaluator())
        assert ids(env) == bundled.select(levels=[level], pattern=f"L{level}/*").ids
        assert {t.task_set for t in env.unwrapped.tasks} == {"kernelgym"}
    assert ids(gym.make("KernelGym-v0", evaluator=InstantEvaluator())) == bundled.ids


def test_kernelgym_x_serves_the_extra_set_and_narrows_by_category():
    extra = gym.make("KernelGym-X-v0", evaluator=InstantEvaluator())
    assert ids(extra) and all(i.startswith("X/") for i in ids(extra))
    assert ids(extra) == load_tasks().select(pattern="X/*").ids
    optim = gym.make("KernelGym-X-v0", categories=["Optimizer"], evaluator=InstantEvaluator())
    assert ids(optim) and all(i.startswith("X/") for i in ids(optim))
    assert {t.category for t in optim.unwrapped.tasks} == {"Optimizer"}


def test_kernelbenchx_alias_is_gone():
    assert "KernelBenchX-v0" not in gym.registry


def test_task_set_of_other_folders_is_the_folder_name(tmp_path):
    assert {t.task_set for t in load_tasks(DATA / "tasks")} == {"tasks"}
    env = gym.make("KernelGym-L1-v0", tasks=str(DATA / "tasks"), evaluator=InstantEvaluator())
    assert env.unwrapped.tasks[0].task_set == "tasks"
    assert load_tasks(kernelbench_checkout(tmp_path / "kb")).get("L1/19_ReLU").task_set == "kernelbench"
    assert load_tasks(DATA / "tasks", task_set="mine")[0].task_set == "mine"


def test_task_to_dict_and_from_dict_keep_the_task_set():
    task = load_tasks()[0]
    data = task.to_dict()
    assert data["task_set"] == "kernelgym" and Task.from_dict(data) == task
    old = {k: v for k, v in data.items() if k != "task_set"}  # a dict written before task sets existed
    assert Task.from_dict(old).task_set == ""


# -- task_set carried into the env, records and reports ---------------------------------------------------
def test_env_info_carries_the_task_set_after_reset_and_step(tmp_path):
    env = gym.make("KernelBench-L1-v0", tasks=str(kernelbench_checkout(tmp_path / "kb")),
                   evaluator=InstantEvaluator(), max_turns=1)
    obs, info = env.reset(seed=0, options={"task_id": "L1/19_ReLU"})
    assert info["task_set"] == "kernelbench" and info["task"]["task_set"] == "kernelbench"
    _, _, _, _, info = env.step("not code")
    assert info["task_set"] == "kernelbench" and info["task_id"] == "L1/19_ReLU"
    env = gym.make("KernelGym-L1-v0", evaluator=InstantEvaluator())
    assert env.reset(seed=0)[1]["task_set"] == "kernelgym"


def test_records_carry_the_task_set_in_jsonl_and_parquet(tmp_path):
    import pyarrow.parquet as pq

    tasks = load_kernelbench(kernelbench_checkout(tmp_path / "kb"), levels=[1])
    stats = collect(lambda obs: "no kernel", tasks, tmp_path / "ep.jsonl", evaluator=InstantEvaluator(),
                    device="cpu", progress=False)
    rows = read_rows(stats.jsonl).rows
    assert [(r["task_id"], r["task_set"]) for r in rows] == [(i, "kernelbench") for i in LEVEL1]
    assert all(r["schema_version"] == 2 for r in rows)
    table = pq.read_table(stats.parquet)
    assert table.schema.equals(arrow_schema()) and table.column("task_set").to_pylist() == ["kernelbench"] * 2
    assert EpisodeRecord.from_row(rows[0]).task_set == "kernelbench"
    old_row = {k: v for k, v in rows[0].items() if k != "task_set"}  # a schema-1 row
    assert EpisodeRecord.from_row(old_row).task_set == ""


def test_folder_evaluation_rows_and_report_carry_the_task_set(tmp_path):
    generations = tmp_path / "gen" / "L1"
    generations.mkdir(parents=True)
    (generations / "1_scaled_relu.py").write_text(GOOD)
    evaluation = evaluate_folder(tmp_path / "gen", load_tasks(DATA / "tasks"), tmp_path / "out",
                                 evaluator=InstantEvaluator(), progress=False)
    assert [r["task_set"] for r in evaluation.rows] == ["tasks"]
    assert evaluation.report["task_set"] == "tasks"
    assert json.loads((tmp_path / "out" / "report.json").read_text())["task_set"] == "tasks"
    assert "- task set: tasks" in (tmp_path / "out" / "report.md").read_text()
