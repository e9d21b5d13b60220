"""torch.distributed: the default process group and its collectives (`distributed_c10d`: one
process, or several joined through `jax.distributed`), device meshes and sharded tensors on
JAX's SPMD sharding.

`init_process_group` accepts PyTorch's backends and init methods; `env://` reads `RANK`,
`WORLD_SIZE`, `MASTER_ADDR` and `MASTER_PORT` as `torchrun` sets them. Before it, collectives
raise PyTorch's ValueError ("Default process group has not been initialized ...").
"""

from __future__ import annotations

from jax.sharding import Mesh, NamedSharding, PartitionSpec

from .._alias import missing_attribute as _missing_attribute
from .._pure import sharding as _sharding
from .._state.tensor import Tensor
from . import constants, distributed_c10d
from .device_mesh import DeviceMesh, init_device_mesh
from .distributed_c10d import *  # noqa: F403  (the process group and its collectives)

__all__ = [*distributed_c10d.__all__, "DeviceMesh", "init_device_mesh", "shard"]


def shard(tensor: Tensor, mesh: Mesh | DeviceMesh, spec: PartitionSpec) -> Tensor:
    """A new leaf with `tensor`'s values laid out on `mesh` (a jax Mesh or a DeviceMesh) by
    the PartitionSpec `spec`, keeping `requires_grad`; ops on it run SPMD."""
    jax_mesh = mesh.jax_mesh if isinstance(mesh, DeviceMesh) else mesh
    value = _sharding.put(tensor.detach()._value, NamedSharding(jax_mesh, spec))
    return Tensor._wrap(value).requires_grad_(tensor.requires_grad)


def __getattr__(name: str):
    return _missing_attribute(__name__, name)
