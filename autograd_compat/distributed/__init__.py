"""torch.distributed: importable; this library runs in one process, so `is_available()` and
`is_initialized()` are False, and a call that needs the default process group raises
PyTorch's ValueError ("Default process group has not been initialized ..."). Multi-process
training (init_process_group, DistributedDataParallel) is not supported yet."""

from __future__ import annotations

__all__ = [
    "ReduceOp",
    "all_gather",
    "all_reduce",
    "barrier",
    "broadcast",
    "destroy_process_group",
    "get_rank",
    "get_world_size",
    "init_process_group",
    "is_available",
    "is_initialized",
    "reduce",
]

NO_PROCESS_GROUP = (
    "Default process group has not been initialized, please make sure to call init_process_group."
)


class ReduceOp:
    """The reduction names of collective operations."""

    SUM = "sum"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"
    AVG = "avg"


def is_available() -> bool:
    """False: no process groups here (one process; see the module docstring)."""
    return False


def is_initialized() -> bool:
    return False


def init_process_group(*args, **kwargs) -> None:
    raise NotImplementedError(
        "torch.distributed.init_process_group is not supported by autograd_compat yet: it runs "
        "in a single process (JAX's multi-device parallelism is not wired to torch.distributed)"
    )


def destroy_process_group(group=None) -> None:
    raise ValueError(NO_PROCESS_GROUP)


def _needs_group(*args, **kwargs):
    raise ValueError(NO_PROCESS_GROUP)


get_rank = get_world_size = barrier = all_reduce = all_gather = broadcast = reduce = _needs_group


def __getattr__(name: str):
    from .._alias import missing_attribute

    return missing_attribute(__name__, name)
