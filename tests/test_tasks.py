"""Task loading (bundled suite, KernelBench folders, parquet), metadata, selection, and the linter."""

from __future__ import annotations

import textwrap

import pytest

from kernelgym.judge.lint import lint_task
from kernelgym.tasks import CATEGORIES, TaskError, load_tasks

PLAIN_KERNELBENCH = textwrap.dedent('''
    import torch
    import torch.nn as nn

    class Model(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.dim = dim

        def forward(self, x):
            return torch.softmax(x, dim=self.dim)

    batch_size = 16
    dim = 1000

    def get_inputs():
        return [torch.randn(batch_size, dim)]

    def get_init_inputs():
        return [1]
''')


def write_task(folder, name, body):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(body)


def test_plain_kernelbench_folder_loads_without_editing(tmp_path):
    write_task(tmp_path / "level1", "23_Softmax.py", PLAIN_KERNELBENCH)
    write_task(tmp_path / "level2", "5_Softmax_again.py", PLAIN_KERNELBENCH)
    tasks = load_tasks(tmp_path)
    assert tasks.ids == ["L1/23_Softmax", "L2/5_Softmax_again"]
    task = tasks.get("L1/23_Softmax")
    assert task.level == 1 and task.category == "Activation" and task.dtype == "float32"
    module = task.load_module()
    assert module.Model(*module.get_init_inputs())(*module.get_inputs()).shape == (16, 1000)


def test_parquet_in_kernelbench_columns_loads(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    table = pa.table({"code": [PLAIN_KERNELBENCH, PLAIN_KERNELBENCH], "level": [1, 2],
                      "name": ["23_Softmax.py", "7_Other.py"], "problem_id": [23, 7]})
    pq.write_table(table, tmp_path / "kb.parquet")
    tasks = load_tasks(tmp_path / "kb.parquet")
    assert tasks.ids == ["L1/23_Softmax", "L2/7_Other"]
    assert tasks.select(levels=[2]).ids == ["L2/7_Other"]


def test_bad_files_give_clear_errors(tmp_path):
    with pytest.raises(TaskError, match="no such task path"):
        load_tasks(tmp_path / "missing")
    write_task(tmp_path / "a" / "level1", "1_x.py", "KERNELGYM = {'category': 'Nope'}\nclass Model: pass\n"
                                                      "def get_inputs(): pass\ndef get_init_inputs(): pass\n")
    with pytest.raises(TaskError, match="category 'Nope'"):
        load_tasks(tmp_path / "a")
    write_task(tmp_path / "b" / "level1", "1_x.py", "import torch\n")
    with pytest.raises(TaskError, match="class Model"):
        load_tasks(tmp_path / "b")
    write_task(tmp_path / "c" / "level1", "1_x.py", "def broken(:\n")
    with pytest.raises(TaskError, match="not valid Python"):
        load_tasks(tmp_path / "c")


def test_small_variant_overrides_shapes(test_tasks):
    task = test_tasks.get("L1/1_scaled_relu")
    assert task.load_module(small=True).get_inputs()[0].shape == (8, 300)
    assert task.evaluate_formula("bytes", small=True) == 8 * 8 * 300
    assert task.evaluate_formula("flops") == 3 * 4096 * 65536


def test_bundled_suite_selection():
    tasks = load_tasks()
    assert len(tasks) >= 12
    l1 = tasks.select(levels=[1], pattern="L1/*")
    assert l1 and all(t.id.startswith("L1/") for t in l1)
    acts = tasks.select(categories=["Activation"])
    assert acts and all(t.category == "Activation" for t in acts)
    with pytest.raises(TaskError, match="unknown categories"):
        tasks.select(categories=["Nope"])
    assert all(t.category in CATEGORIES for t in tasks)


CONSTANT_TASK = '''
import torch
import torch.nn as nn
KERNELGYM = {"category": "Math", "flops": "N", "bytes": "4 * N", "small": {"N": 64}}
N = 1 << 20
class Model(nn.Module):
    def forward(self, x):
        return torch.zeros_like(x) + 3.0
def get_inputs():
    return [torch.randn(N)]
def get_init_inputs():
    return []
'''

NONDETERMINISTIC_TASK = '''
import torch
import torch.nn as nn
KERNELGYM = {"category": "Math", "flops": "N", "bytes": "4 * N", "small": {"N": 64}}
N = 1 << 20
class Model(nn.Module):
    def forward(self, x):
        return x + torch.randn(x.shape, generator=torch.Generator().manual_seed(torch.seed() % 1000))
def get_inputs():
    return [torch.randn(N)]
def get_init_inputs():
    return []
'''


def lint_source(tmp_path, source):
    write_task(tmp_path / "level1", "1_t.py", source)
    return lint_task(load_tasks(tmp_path)[0])


def test_linter_fails_a_constant_output_task(tmp_path):
    report = lint_source(tmp_path, CONSTANT_TASK)
    assert not report.ok
    assert not report.checks["seed_varies"][0]
    assert "constant answer passes" in report.checks["nonconstant"][1]


def test_linter_fails_a_nondeterministic_task(tmp_path):
    report = lint_source(tmp_path, NONDETERMINISTIC_TASK)
    assert not report.ok and not report.checks["deterministic"][0]


OVERSIZED_TASK = '''
import torch
import torch.nn as nn
KERNELGYM = {"category": "Math", "flops": "N * N", "bytes": "8 * N * N", "small": {"N": 64}}
N = 60_000
class Model(nn.Module):
    def forward(self, x):
        return torch.tanh(x) * 2 + x
def get_inputs():
    return [torch.randn(N, N)]
def get_init_inputs():
    return []
'''


def test_linter_fails_a_task_too_big_for_24_gb(tmp_path):
    """60000^2 fp32 is 14.4 GB per tensor: input, tanh, product and sum exceed 24 GB (traced, never allocated)."""
    report = lint_source(tmp_path, OVERSIZED_TASK)
    assert not report.checks["memory"][0], report.render()
    assert "above 24 GB" in report.checks["memory"][1]
    assert report.checks["nonconstant"][0]  # the rest of the task is fine: only its size fails


def test_linter_passes_a_good_task(test_tasks):
    report = lint_task(test_tasks.get("L1/1_scaled_relu"))
    assert report.ok, report.render()


#: two outputs, the second always far below the fp32 atol (1e-4): a kernel could skip it and pass
TINY_SECOND_OUTPUT_TASK = '''
import torch
import torch.nn as nn
KERNELGYM = {"category": "Math", "flops": "N", "bytes": "12 * N", "small": {"N": 4096}}
N = 4096
class Model(nn.Module):
    def forward(self, x):
        return torch.tanh(x) * 2 + x, x * 1e-7
def get_inputs():
    return [torch.randn(N)]
def get_init_inputs():
    return []
'''


def test_linter_fails_a_task_with_one_output_a_kernel_could_skip(tmp_path):
    """Zeros in the second output alone pass (the first stays right): the task cannot tell a kernel that skips it."""
    report = lint_source(tmp_path, TINY_SECOND_OUTPUT_TASK)
    assert not report.ok
    assert "output 1 of 2, an all-zero answer passes" in report.checks["nonconstant"][1]


#: LayerNorm after a GEMM; ``{init}`` is the constructor's last line (nothing: PyTorch's default weight 1, bias 0)
LAYERNORM_TASK = '''
import torch
import torch.nn as nn
KERNELGYM = {{"category": "Normalization", "flops": "2 * M * N * N", "bytes": "4 * (2 * M * N + N * N)",
             "small": {{"M": 16, "N": 32}}, "atol": 1e-3, "rtol": 1e-3}}
M, N = 64, 128
class Model(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.fc = nn.Linear(n, n)
        self.norm = nn.LayerNorm(n)
        {init}
    def forward(self, x):
        return self.norm(self.fc(x))
def get_inputs():
    return [torch.randn(M, N)]
def get_init_inputs():
    return [N]
'''


def test_linter_fails_a_task_whose_parameters_keep_a_constant_default(tmp_path):
    """LayerNorm's weight of ones and bias of zeros: a kernel that never read them would pass, since the judge only
    varies the inputs. Drawn from the seeded generator instead, the task passes every check."""
    constant = lint_source(tmp_path / "constant", LAYERNORM_TASK.format(init=""))
    assert not constant.ok
    assert constant.checks["parameters_vary"] == (False, "constant (a kernel could skip reading them): "
                                                         "norm.weight (all 1), norm.bias (all 0)")
    assert all(ok for name, (ok, _) in constant.checks.items() if name != "parameters_vary"), constant.render()

    varied = lint_source(tmp_path / "varied", LAYERNORM_TASK.format(
        init="nn.init.uniform_(self.norm.weight, 0.5, 1.5); nn.init.uniform_(self.norm.bias, -0.5, 0.5)"))
    assert varied.ok, varied.render()
    half = lint_source(tmp_path / "half", LAYERNORM_TASK.format(init="nn.init.uniform_(self.norm.weight, 0.5, 1.5)"))
    assert half.checks["parameters_vary"] == (False, "constant (a kernel could skip reading them): norm.bias (all 0)")


def test_linter_reports_constant_parameters_of_kernelbench_problems(tmp_path):
    """KernelBench's problems go through the check too (at their own shapes), reported like the others."""
    source = LAYERNORM_TASK.format(init="").replace('"small": {"M": 16, "N": 32}, ', "")
    write_task(tmp_path / "level2", "3_Gemm_LayerNorm.py", source)
    report = lint_task(load_tasks(tmp_path, task_set="kernelbench")[0])
    assert report.checks["parameters_vary"][0] is False and "norm.weight (all 1)" in report.checks["parameters_vary"][1]
    assert "speed" not in report.checks  # the KernelBench path: no speed band


def test_constant_state_counts_what_the_forward_reads():
    """A batch norm's running statistics count in eval mode (the forward normalises by them) but not in training mode
    (it normalises by the batch's and only writes them); integer buffers and one-element tensors never count."""
    import torch.nn as nn

    from kernelgym.judge.lint import constant_state

    bn = nn.BatchNorm1d(4)
    assert constant_state(bn.eval()) == ["weight (all 1)", "bias (all 0)", "running_mean (all 0)",
                                         "running_var (all 1)"]
    assert constant_state(nn.Sequential(bn).train()) == ["0.weight (all 1)", "0.bias (all 0)"]
    nn.init.uniform_(bn.weight, 0.5, 1.5)
    nn.init.uniform_(bn.bias, -0.5, 0.5)
    assert constant_state(bn.train()) == []
    scalar = nn.Linear(1, 1)
    nn.init.constant_(scalar.weight, 1.0)
    assert constant_state(scalar) == [] and constant_state(lambda x: x) == []


def test_a_task_may_name_its_arithmetics_precision_and_nothing_else(tmp_path):
    from kernelgym.hardware import precision_of

    body = ("class Model: pass\ndef get_inputs(): pass\ndef get_init_inputs(): pass\n")
    write_task(tmp_path / "a" / "level1", "1_x.py", "KERNELGYM = {'dtype': 'float32', 'precision': 'int8'}\n" + body)
    task = load_tasks(tmp_path / "a").get("L1/1_x")
    assert task.precision == "int8" and precision_of(task.dtype, task.precision) == "int8"
    assert type(task).from_dict(task.to_dict()) == task
    write_task(tmp_path / "b" / "level1", "1_x.py", "KERNELGYM = {'precision': 'int4'}\n" + body)
    with pytest.raises(TaskError, match="precision 'int4' is not one of"):
        load_tasks(tmp_path / "b")
    write_task(tmp_path / "c" / "level1", "1_x.py", body)
    assert precision_of(load_tasks(tmp_path / "c").get("L1/1_x").dtype, None) == "tf32"  # a float32 task's default
