"""Random tasks (``check = "statistical"``) end to end on the CPU judge: an honest sampler passes, an output that
ignores its input or is NaN fails (kernelgym/judge/statistical.py, docs/SECURITY.md)."""

from __future__ import annotations

import pytest

from kernelgym.tasks import load_tasks
from conftest import SHORT

#: a Bernoulli sampler for X/48 whose kernel body is ``{draw}``: ``p`` (loaded probabilities), ``u`` (fresh uniforms)
SAMPLER = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sample(p_ptr, y_ptr, n, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask, other=0.0)
    u = tl.rand(seed, offs)
    tl.store(y_ptr + offs, {draw}, mask=mask)


class ModelNew(nn.Module):
    def forward(self, p):
        p = p.contiguous()
        y = torch.empty_like(p)
        seed = int(torch.randint(0, 2**31 - 1, (1,)))
        sample[(triton.cdiv(p.numel(), 1024),)](p, y, p.numel(), seed, BLOCK=1024)
        return y
'''


@pytest.fixture(scope="module")
def bernoulli_task():
    return load_tasks().get("X/48_bernoulli_from_probs")


@pytest.fixture(scope="module")
def verdicts(bernoulli_task, tmp_path_factory):
    """The samplers judged at once on two CPU judges."""
    from kernelgym.evaluators import LocalEvaluator

    draws = {"honest": "(u < p).to(tl.float32)",
             "ignores_p": "(u < 0.3 + 0.0 * p).to(tl.float32)",  # reads p (so the load stays), never uses it
             "nan": "u * float('nan')"}
    texts = {name: SAMPLER.format(draw=draw) for name, draw in draws.items()}
    # an honest law from one fixed seed: the same pattern on every call (found by a red-team helper)
    texts["fixed_seed"] = texts["honest"].replace("seed = int(torch.randint(0, 2**31 - 1, (1,)))", "seed = 1234")
    assert texts["fixed_seed"] != texts["honest"]
    # an honest law with a few elements left non-finite (a thirteenth red-team helper: 6 of each kind passed)
    texts["few_nonfinite"] = texts["honest"].replace("        return y\n", "        y.view(-1)[0:2] = float('inf')\n"
                                                     "        return y\n")
    assert texts["few_nonfinite"] != texts["honest"]
    with LocalEvaluator(device="cpu", cache_dir=tmp_path_factory.mktemp("cache"), max_workers=2,
                        prestart_workers=False) as evaluator:
        futures = {name: evaluator.submit(bernoulli_task, text, profile=SHORT) for name, text in texts.items()}
        yield {name: future.result() for name, future in futures.items()}


def test_an_honest_sampler_passes(verdicts):
    result = verdicts["honest"]
    assert result.status == "ok", f"{result.message}\n{result.log_tail[-1500:]}"


def test_a_sampler_that_ignores_its_input_is_incorrect(verdicts):
    result = verdicts["ignores_p"]
    assert result.status == "incorrect", result.message
    assert "follows its input less than a fresh draw" in result.message


def test_a_nan_output_is_incorrect(verdicts):
    result = verdicts["nan"]
    assert result.status == "incorrect", result.message
    assert "NaN element(s), the reference has 0" in result.message


def test_a_few_non_finite_elements_where_the_reference_has_none_are_incorrect(verdicts):
    result = verdicts["few_nonfinite"]
    assert result.status == "incorrect", result.message
    assert "+Inf element(s), the reference has 0" in result.message


def test_a_sampler_with_the_same_seed_on_every_call_is_incorrect(verdicts):
    """Each output alone is a fine draw; called twice on the same inputs it does not change."""
    result = verdicts["fixed_seed"]
    assert result.status == "incorrect", result.message
    assert "repeat trial" in result.message and "fresh randomness" in result.message
    assert any(t.get("stage") == "repeat" for t in result.trials)


def test_an_honest_sampler_gets_its_repeat_trial(verdicts):
    assert any(t.get("stage") == "repeat" and t.get("ok") for t in verdicts["honest"].trials)
