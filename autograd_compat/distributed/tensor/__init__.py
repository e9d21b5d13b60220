"""torch.distributed.tensor: tensors laid out on a DeviceMesh, split (`Shard(dim)`) or whole on
every device (`Replicate()`). A `DTensor`'s value is the global sharded `jax.Array`: ops on it
run SPMD (XLA partitions each one) and give DTensors (`_api`). A `Partial` placement (values
pending a reduction) lays the tensor out whole, as `Replicate`: the value held is the reduced
one, and its placements read `Replicate()`."""

from __future__ import annotations

from ._api import DTensor
from ._distribute import distribute_module, distribute_tensor
from .placement_types import Partial, Placement, Replicate, Shard

__all__ = [
    "DTensor",
    "Partial",
    "Placement",
    "Replicate",
    "Shard",
    "distribute_module",
    "distribute_tensor",
]
