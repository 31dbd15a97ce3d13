"""Environments: KernelEnv, its spaces, prompt rendering, the Gymnasium registration and the vector env
(:class:`~kernelgym.envs.vector.KernelVectorEnv` and its :class:`~kernelgym.envs.vector.VectorStepError`, imported
when first used)."""

from kernelgym.envs.kernel_env import KernelEnv
from kernelgym.envs.registration import ENV_IDS, register_envs
from kernelgym.envs.spaces import AnyText

__all__ = ["AnyText", "ENV_IDS", "KernelEnv", "KernelVectorEnv", "VectorStepError", "register_envs"]


def __getattr__(name):
    if name in ("KernelVectorEnv", "VectorStepError"):
        from kernelgym.envs import vector

        return getattr(vector, name)
    raise AttributeError(name)
