"""Environments: KernelEnv, its spaces, prompt rendering, the Gymnasium registration and the vector env
(:class:`~kernelgym.envs.vector.KernelVectorEnv`, imported when first used)."""

from kernelgym.envs.kernel_env import KernelEnv
from kernelgym.envs.registration import ENV_IDS, register_envs
from kernelgym.envs.spaces import AnyText

__all__ = ["AnyText", "ENV_IDS", "KernelEnv", "KernelVectorEnv", "register_envs"]


def __getattr__(name):
    if name == "KernelVectorEnv":
        from kernelgym.envs.vector import KernelVectorEnv

        return KernelVectorEnv
    raise AttributeError(name)
