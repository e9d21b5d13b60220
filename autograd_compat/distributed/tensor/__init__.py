"""torch.distributed.tensor: place a tensor on a DeviceMesh, split (`Shard(dim)`) or whole on
every device (`Replicate()`). The result is an ordinary Tensor whose array is a sharded
`jax.Array`: ops on it run SPMD (XLA partitions each one) and the `.grad` of a sharded leaf
keeps its sharding. PyTorch returns a `DTensor` subclass; here `full_tensor()`'s role is
played by the Tensor itself (its value is always the global one), so no tensor is a `DTensor`:
the class is there for isinstance checks, and making one raises. A `Partial` placement (values
pending a reduction) lays the tensor out whole, as `Replicate`: the global value is the same."""

from __future__ import annotations

from collections.abc import Sequence

from jax.sharding import PartitionSpec

from ..._state.tensor import Tensor
from ..._state.torch_function import _disabled_torch_function_impl
from .. import shard
from ..device_mesh import DeviceMesh
from .placement_types import Partial, Placement, Replicate, Shard

__all__ = ["DTensor", "Partial", "Placement", "Replicate", "Shard", "distribute_tensor"]


class DTensor(Tensor):
    """PyTorch's distributed tensor class; tensors laid out on a mesh here are plain Tensors
    holding the global value (see the module), so none is a DTensor."""

    __torch_function__ = _disabled_torch_function_impl

    def __new__(cls, *args, **kwargs):
        raise NotImplementedError(
            "torch.distributed.tensor.DTensor: autograd_compat's distributed tensors are "
            "ordinary Tensors holding the global value; use distribute_tensor"
        )

    @classmethod
    def from_local(cls, local_tensor, device_mesh=None, placements=None, **kwargs):
        raise NotImplementedError(
            "torch.distributed.tensor.DTensor.from_local: autograd_compat's distributed "
            "tensors hold the global value, not per-rank pieces; use distribute_tensor"
        )


def _spec(placements: Sequence, mesh: DeviceMesh, ndim: int) -> PartitionSpec:
    if len(placements) != mesh.ndim:
        raise ValueError(
            f"`placements` must have the same length as `device_mesh.ndim`! Found placements "
            f"length: {len(placements)}, and device_mesh.ndim: {mesh.ndim}."
        )
    spec: list = [None] * ndim
    for name, placement in zip(mesh.mesh_dim_names, placements):
        if isinstance(placement, Shard):
            dim = placement.dim + ndim if placement.dim < 0 else placement.dim
            if not 0 <= dim < ndim:
                raise IndexError(f"Shard({placement.dim}) is out of range for a {ndim}-D tensor")
            spec[dim] = name if spec[dim] is None else (*_names(spec[dim]), name)
        elif not isinstance(placement, (Replicate, Partial)):
            raise TypeError(f"placements must be Shard, Replicate or Partial, got {placement!r}")
    return PartitionSpec(*spec)


def _names(entry) -> tuple:
    return (entry,) if isinstance(entry, str) else tuple(entry)


def distribute_tensor(
    tensor: Tensor, device_mesh: DeviceMesh, placements: Sequence | None = None
) -> Tensor:
    """A new leaf holding `tensor`'s values laid out on `device_mesh` by `placements`
    (default: replicated), with its `requires_grad`."""
    placements = placements if placements is not None else [Replicate()] * device_mesh.ndim
    return shard(tensor, device_mesh, _spec(list(placements), device_mesh, tensor.ndim))
