"""Environments: KernelEnv, its spaces, prompt rendering and the Gymnasium registration."""

from kernelgym.envs.kernel_env import KernelEnv
from kernelgym.envs.registration import ENV_IDS, register_envs
from kernelgym.envs.spaces import AnyText

__all__ = ["AnyText", "ENV_IDS", "KernelEnv", "register_envs"]
