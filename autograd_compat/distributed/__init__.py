"""torch.distributed in one process: the default process group of world size 1 (rank 0), the
collectives on it, device meshes and sharded tensors on JAX's SPMD sharding.

`init_process_group` accepts PyTorch's backends and init methods; `env://` reads `RANK` and
`WORLD_SIZE` as `torchrun` sets them. A world size above 1 (several processes) is not
supported yet and says so. Before `init_process_group`, collectives raise PyTorch's
ValueError ("Default process group has not been initialized ...").
"""

from __future__ import annotations

import os

import jax
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from .._pure import sharding as _sharding
from .._state.tensor import Tensor
from .device_mesh import DeviceMesh, init_device_mesh

__all__ = [
    "DeviceMesh",
    "ReduceOp",
    "all_gather",
    "all_reduce",
    "barrier",
    "broadcast",
    "destroy_process_group",
    "get_backend",
    "get_rank",
    "get_world_size",
    "init_device_mesh",
    "init_process_group",
    "is_available",
    "is_initialized",
    "reduce",
    "shard",
]

NO_PROCESS_GROUP = (
    "Default process group has not been initialized, please make sure to call init_process_group."
)
_BACKENDS = ("gloo", "nccl", "mpi", "ucc", "xla", "cpu:gloo,cuda:nccl")

_group: dict = {}  # the default process group: {"backend": str}, empty before init


class ReduceOp:
    """The reduction names of collective operations."""

    SUM = "sum"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"
    AVG = "avg"


def is_available() -> bool:
    """True: torch.distributed's API is here (one process; see the module docstring)."""
    return True


def is_initialized() -> bool:
    return bool(_group)


def _env_int(name: str, given: int) -> int:
    if given >= 0:
        return given
    value = os.environ.get(name)
    if value is None:
        raise ValueError(
            "Error initializing torch.distributed using env:// rendezvous: environment "
            f"variable {name} expected, but not set"
        )
    return int(value)


def init_process_group(
    backend: str | None = None,
    init_method: str | None = None,
    timeout=None,
    world_size: int = -1,
    rank: int = -1,
    store=None,
    group_name: str = "",
    pg_options=None,
    device_id=None,
) -> None:
    """Start the default process group (world size 1 here; see the module docstring)."""
    if _group:
        raise ValueError("trying to initialize the default process group twice!")
    if backend is not None and str(backend).lower() not in _BACKENDS:
        raise ValueError(f"Invalid backend: '{backend}'")
    if store is None and (init_method is None or init_method.startswith("env://")):
        world_size, rank = _env_int("WORLD_SIZE", world_size), _env_int("RANK", rank)
    world_size, rank = max(world_size, 1), max(rank, 0)
    if world_size != 1 or rank != 0:
        raise NotImplementedError(
            f"torch.distributed with world size {world_size} (rank {rank}): several processes "
            "are not supported by autograd_compat yet; one process uses all its local devices "
            "through DistributedDataParallel and DeviceMesh"
        )
    _group["backend"] = str(backend or "gloo").lower()


def _require_group() -> None:
    if not _group:
        raise ValueError(NO_PROCESS_GROUP)


def destroy_process_group(group=None) -> None:
    _require_group()
    _group.clear()


def get_backend(group=None) -> str:
    _require_group()
    return _group["backend"]


def get_rank(group=None) -> int:
    _require_group()
    return 0


def get_world_size(group=None) -> int:
    _require_group()
    return 1


def barrier(group=None, async_op: bool = False, device_ids=None) -> None:
    """Waits for every rank: with one rank, for this process's queued device work."""
    _require_group()
    jax.effects_barrier()


def all_reduce(tensor: Tensor, op=ReduceOp.SUM, group=None, async_op: bool = False) -> None:
    """Reduce `tensor` over the ranks in place: with one rank its value is the result."""
    _require_group()


def reduce(tensor: Tensor, dst: int = 0, op=ReduceOp.SUM, group=None, async_op=False) -> None:
    _require_group()
    _check_rank(dst, "dst")


def broadcast(tensor: Tensor, src: int = 0, group=None, async_op: bool = False) -> None:
    _require_group()
    _check_rank(src, "src")


def all_gather(tensor_list: list, tensor: Tensor, group=None, async_op: bool = False) -> None:
    """Fill `tensor_list` (one tensor per rank) with every rank's `tensor`."""
    _require_group()
    if len(tensor_list) != 1:
        raise ValueError(
            f"all_gather: tensor_list has {len(tensor_list)} tensors, the world size is 1"
        )
    tensor_list[0].copy_(tensor)


def _check_rank(rank: int, name: str) -> None:
    if rank != 0:
        raise ValueError(f"Invalid {name} rank {rank}: the world size is 1")


def shard(tensor: Tensor, mesh: Mesh | DeviceMesh, spec: PartitionSpec) -> Tensor:
    """A new leaf with `tensor`'s values laid out on `mesh` (a jax Mesh or a DeviceMesh) by
    the PartitionSpec `spec`, keeping `requires_grad`; ops on it run SPMD."""
    jax_mesh = mesh.jax_mesh if isinstance(mesh, DeviceMesh) else mesh
    value = _sharding.put(tensor.detach()._value, NamedSharding(jax_mesh, spec))
    return Tensor._wrap(value).requires_grad_(tensor.requires_grad)


def __getattr__(name: str):
    from .._alias import missing_attribute

    return missing_attribute(__name__, name)
