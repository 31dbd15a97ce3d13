"""Distribution over GPUs with Ray: the evaluation pool, the vector env, RLlib registration.

Importing this package does not import Ray; :class:`RayEvalPool` and friends import it when used.
"""

from kernelgym.distributed.locks import NoLock, SharedExclusiveLock

__all__ = ["NoLock", "SharedExclusiveLock", "RayEvalPool", "KernelVectorEnv", "register_rllib_envs",
           "text_policy_env_runner_cls"]


def __getattr__(name):
    if name == "RayEvalPool":
        from kernelgym.distributed.pool import RayEvalPool

        return RayEvalPool
    if name == "KernelVectorEnv":
        from kernelgym.distributed.vector import KernelVectorEnv

        return KernelVectorEnv
    if name in ("register_rllib_envs", "text_policy_env_runner_cls"):
        from kernelgym.distributed import rllib

        return getattr(rllib, name)
    raise AttributeError(name)
