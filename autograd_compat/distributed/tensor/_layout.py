"""Placements and JAX shardings, both ways: the `NamedSharding` a list of placements gives on a
DeviceMesh, and the placements that a sharding (an op's output layout) reads back as.

A mesh dimension that splits a tensor dimension is `Shard(dim)`; one that does not is
`Replicate()`. `Partial` has no layout of its own: the array is the global (reduced) value,
laid out as `Replicate`, so it reads back as `Replicate()`.
"""

from __future__ import annotations

from collections.abc import Sequence

from jax.sharding import NamedSharding, PartitionSpec

from ..device_mesh import DeviceMesh
from .placement_types import Partial, Placement, Replicate, Shard

__all__: list[str] = []


def normalized(placements: Sequence, mesh: DeviceMesh, ndim: int) -> tuple[Placement, ...]:
    """`placements` checked against `mesh` and a tensor of `ndim` dimensions, with negative
    `Shard` dimensions made positive (PyTorch's ValueError for a wrong count)."""
    if len(placements) != mesh.ndim:
        raise ValueError(
            f"`placements` must have the same length as `device_mesh.ndim`! Found placements "
            f"length: {len(placements)}, and device_mesh.ndim: {mesh.ndim}."
        )
    out: list[Placement] = []
    for placement in placements:
        if isinstance(placement, Shard):
            dim = placement.dim + ndim if placement.dim < 0 else placement.dim
            if not 0 <= dim < ndim:
                raise IndexError(f"Shard({placement.dim}) is out of range for a {ndim}-D tensor")
            placement = Shard(dim)
        elif not isinstance(placement, (Replicate, Partial)):
            raise TypeError(f"placements must be Shard, Replicate or Partial, got {placement!r}")
        out.append(placement)
    reduce_ops = {p.reduce_op for p in out if isinstance(p, Partial)}
    if len(reduce_ops) > 1:
        raise ValueError(
            f"Cannot mix Partial reduce types in placements: found {sorted(reduce_ops)}. "
            "All Partial placements must use the same reduce_op."
        )
    return tuple(out)


def spec_of(placements: Sequence[Placement], mesh: DeviceMesh, ndim: int) -> PartitionSpec:
    """The PartitionSpec of normalized `placements`: each sharded tensor dimension names the
    mesh dimensions that split it, in mesh order."""
    spec: list = [None] * ndim
    for name, placement in zip(mesh.mesh_dim_names, placements):
        if isinstance(placement, Shard):
            entry = spec[placement.dim]
            spec[placement.dim] = name if entry is None else (*_names(entry), name)
    return PartitionSpec(*spec)


def sharding_of(placements: Sequence[Placement], mesh: DeviceMesh, ndim: int) -> NamedSharding:
    """The NamedSharding of normalized `placements` on `mesh`."""
    return NamedSharding(mesh.jax_mesh, spec_of(placements, mesh, ndim))


def placements_of(sharding: NamedSharding) -> tuple[Placement, ...]:
    """The placements, one per mesh dimension, of an array laid out by `sharding`."""
    split: dict[str, int] = {}
    for dim, entry in enumerate(sharding.spec):
        if entry is not None:
            for name in _names(entry):
                split[name] = dim
    return tuple(
        Shard(split[name]) if name in split else Replicate() for name in sharding.mesh.axis_names
    )


def _names(entry) -> tuple:
    return (entry,) if isinstance(entry, str) else tuple(entry)
