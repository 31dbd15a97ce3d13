"""Evaluators: where candidates are evaluated, behind one small interface (the layer above the judge).

==========================  ====================================================================================
module                      what
==========================  ====================================================================================
:mod:`.base`                the :class:`Evaluator` protocol, batch helpers (:func:`batch_plans`, :func:`repeated_task_keys`)
:mod:`.local`               :class:`LocalEvaluator` (this machine, one Judge per thread), :class:`ThreadJudges`,
                            :func:`as_evaluator`
:mod:`.judge_pool`          :class:`JudgePool` (``kernelgym eval``, the trainer adapters)
:mod:`.ray_pool`            :class:`RayEvalPool` (a Ray cluster, one actor per GPU; Ray imported when used)
==========================  ====================================================================================

Every public name is importable from here: ``from kernelgym.evaluators import LocalEvaluator, RayEvalPool``.
Importing this package does not import Ray.
"""

from kernelgym.evaluators.base import Evaluator, Item, batch_plans, default_workers, repeated_task_keys
from kernelgym.evaluators.judge_pool import JudgePool
from kernelgym.evaluators.local import LocalEvaluator, ThreadJudges, as_evaluator

__all__ = ["Evaluator", "Item", "JudgePool", "LocalEvaluator", "RayEvalPool", "ThreadJudges", "as_evaluator",
           "batch_plans", "default_workers", "repeated_task_keys"]


def __getattr__(name):
    if name == "RayEvalPool":
        from kernelgym.evaluators.ray_pool import RayEvalPool

        return RayEvalPool
    raise AttributeError(name)
