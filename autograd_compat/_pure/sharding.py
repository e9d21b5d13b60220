"""Tensors spread over several devices with JAX's SPMD sharding: placing an array on a mesh,
and keeping a gradient on the sharding of its leaf.

Nothing here communicates by hand: an op applied to sharded arrays is one jitted program that
XLA partitions (GSPMD), inserting the all-reduce or all-gather it needs. Arrays made without a
device (factories, host data) are uncommitted, so jit moves them onto the mesh of the others.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.core import Tracer
from jax.sharding import NamedSharding, PartitionSpec

from . import executables

# Set once anything is put on a mesh: until then `keep_sharding` is one list read.
_USED = [False]


def put(value: jax.Array, sharding: NamedSharding) -> jax.Array:
    """A copy of `value` laid out by `sharding` (traced: constrained to it), after checking
    that each sharded dimension divides evenly over its mesh axes (XLA's layouts are even),
    with an error naming the dimension."""
    spec = tuple(sharding.spec) + (None,) * (value.ndim - len(sharding.spec))
    if len(spec) > value.ndim:
        raise ValueError(
            f"PartitionSpec {sharding.spec} has {len(sharding.spec)} entries for a tensor with "
            f"{value.ndim} dimensions (shape {list(value.shape)})"
        )
    for dim, axes in enumerate(spec):
        if axes is None:
            continue
        names = (axes,) if isinstance(axes, str) else tuple(axes)
        parts = 1
        for name in names:
            parts *= sharding.mesh.shape[name]
        if value.shape[dim] % parts:
            raise ValueError(
                f"dimension {dim} of size {value.shape[dim]} (shape {list(value.shape)}) cannot "
                f"be split evenly over mesh axes {names} of {parts} devices"
            )
    _USED[0] = True
    if isinstance(value, Tracer):  # inside a compiled step: the program lays it out
        return jax.lax.with_sharding_constraint(value, sharding)
    if not sharding.is_fully_addressable:  # a mesh spanning processes: this one's pieces
        host = np.asarray(value)
        return jax.make_array_from_callback(value.shape, sharding, lambda index: host[index])
    out = jax.device_put(value, sharding, may_alias=False)
    return _COPY(out) if _shares_buffer(out, value) else out


def _shares_buffer(out: jax.Array, value: jax.Array) -> bool:
    """Whether a shard of `out` is `value`'s buffer (jax.device_put keeps it for the shard on
    `value`'s device): that buffer dies with `value` when a compiled step donates it."""
    if len(value.sharding.device_set) != 1 or value.is_deleted():
        return False
    source = value.addressable_data(0).unsafe_buffer_pointer()
    return any(s.data.unsafe_buffer_pointer() == source for s in out.addressable_shards)


_COPY = executables.jit(jnp.copy)  # new buffers laid out as its input's


def replicated(mesh: jax.sharding.Mesh) -> NamedSharding:
    """The sharding that keeps a whole copy on every device of `mesh`."""
    return NamedSharding(mesh, PartitionSpec())


def along(mesh: jax.sharding.Mesh, dim: int, ndim: int) -> NamedSharding:
    """The sharding that splits dimension `dim` of an `ndim`-dimensional array over all the
    axes of `mesh` (a data-parallel batch)."""
    spec: list = [None] * ndim
    spec[dim] = mesh.axis_names if len(mesh.axis_names) > 1 else mesh.axis_names[0]
    return NamedSharding(mesh, PartitionSpec(*spec))


def keep_sharding(value: jax.Array, old) -> jax.Array:
    """`value` laid out as `old` (an array of the same shape) when `old` lives on a mesh: a
    `.grad` keeps its leaf's layout as PyTorch keeps it with its parameter (XLA may return it
    laid out otherwise), and a write into a tensor (copy_, load_state_dict, a compiled step's
    new state) keeps the tensor's. Traced, `value` is constrained to that layout, so the
    program itself returns it. One list read while nothing has been put on a mesh."""
    if not _USED[0] or isinstance(old, Tracer):
        return value
    sharding = getattr(old, "sharding", None)
    if not isinstance(sharding, NamedSharding) or value.shape != old.shape:
        return value
    if isinstance(value, Tracer):
        return jax.lax.with_sharding_constraint(value, sharding)
    return value if value.sharding == sharding else jax.device_put(value, sharding)
