"""Collectives across the processes of a `jax.distributed` job, as XLA programs.

Each process contributes the array it holds: the arrays of all ranks become one global array
(one row per rank, on a mesh of one device per process, `jax.make_array_from_single_device_arrays`)
and a jitted reduction, gather or selection over it with a replicated result is the collective.
XLA inserts the all-reduce or all-gather (gloo on CPU, NCCL on GPU); nothing here talks over
sockets. Several arrays in one call are one program, so XLA combines their collectives.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from .._pure import executables

_AXIS = "ranks"


def _average(rows: jax.Array) -> jax.Array:
    """The mean over ranks, in the rows' dtype (integers divide as C does, as NCCL's AVG)."""
    total = jnp.sum(rows, axis=0, dtype=rows.dtype)
    if jnp.issubdtype(rows.dtype, jnp.integer):
        return lax.div(total, jnp.asarray(rows.shape[0], rows.dtype))
    return total / jnp.asarray(rows.shape[0], rows.dtype)


_REDUCTIONS = {
    "sum": lambda rows: jnp.sum(rows, axis=0, dtype=rows.dtype),
    "product": lambda rows: jnp.prod(rows, axis=0, dtype=rows.dtype),
    "min": lambda rows: jnp.min(rows, axis=0),
    "max": lambda rows: jnp.max(rows, axis=0),
    "avg": _average,
}


@functools.cache
def _program(kind: str, everywhere: NamedSharding, src: int = 0):
    """The jitted collective `kind` over a tuple of global arrays (one row per rank), its
    results replicated on every rank: a reduction ("sum", "avg", ...), "gather" (all rows)
    or "take" (rank `src`'s row)."""
    if kind == "gather":
        one = lambda rows: rows  # noqa: E731 -- replicating the rows is the all-gather
    elif kind == "take":
        one = lambda rows: rows[src]  # noqa: E731
    else:
        one = _REDUCTIONS[kind]
    return executables.jit(
        lambda values: tuple(one(rows) for rows in values), out_shardings=everywhere
    )


class Collectives:
    """The collectives of this process among all processes of the `jax.distributed` job."""

    def __init__(self) -> None:
        first: dict[int, jax.Device] = {}
        for device in jax.devices():
            first.setdefault(device.process_index, device)
        self.world_size = jax.process_count()
        devices = [first[rank] for rank in range(self.world_size)]
        self.mesh = Mesh(np.asarray(devices, dtype=object), (_AXIS,))
        self.device = first[jax.process_index()]
        self._rows = NamedSharding(self.mesh, PartitionSpec(_AXIS))
        self._everywhere = NamedSharding(self.mesh, PartitionSpec())

    def _global(self, value: jax.Array) -> jax.Array:
        """The global array whose row r is rank r's `value`."""
        row = jax.device_put(jnp.expand_dims(value, 0), self.device)
        shape = (self.world_size, *value.shape)
        return jax.make_array_from_single_device_arrays(shape, self._rows, [row])

    def _run(self, kind: str, values: tuple, src: int = 0) -> tuple:
        program = _program(kind, self._everywhere, src)
        results = program(tuple(self._global(v) for v in values))
        return tuple(result.addressable_data(0) for result in results)

    def reduce(self, values: tuple, op: str) -> tuple:
        """Each array reduced over the ranks by `op` ("sum", "product", "min", "max",
        "avg"), in one program."""
        return self._run(op, values)

    def gather(self, value: jax.Array) -> jax.Array:
        """Every rank's `value`, stacked along a new first dimension in rank order."""
        return self._run("gather", (value,))[0]

    def broadcast(self, values: tuple, src: int) -> tuple:
        """Rank `src`'s arrays, in one program."""
        return self._run("take", values, src)
