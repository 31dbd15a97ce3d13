"""Compatibility alias (older import path): ``RayEvalPool`` lives in :mod:`kernelgym.evaluators.ray_pool`,
``KernelVectorEnv`` in :mod:`kernelgym.envs.vector`. Importing this module does not import Ray."""
from kernelgym.envs.vector import KernelVectorEnv  # noqa: F401
from kernelgym.evaluators.ray_pool import RayEvalPool  # noqa: F401
