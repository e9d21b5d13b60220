"""torch.distributed.tensor._utils: the local shard shape and offset a placement gives."""

from __future__ import annotations

from collections.abc import Sequence

from ..device_mesh import DeviceMesh
from .placement_types import Placement, Shard

__all__ = ["compute_local_shape_and_global_offset"]


def compute_local_shape_and_global_offset(
    global_shape, mesh: DeviceMesh, placements: Sequence[Placement], skip_offset: bool = False
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The shape of this rank's shard of a tensor of `global_shape` laid out on `mesh` by
    `placements`, and where it starts in the global tensor (torch.chunk's split: chunks of
    ceil(size / parts), the last ones shorter or empty)."""
    shape, offset = list(global_shape), [0] * len(global_shape)
    coordinate = mesh.get_coordinate()
    if coordinate is None:  # this rank holds no shard
        return (0,) * len(shape), (() if skip_offset else tuple(offset))
    for mesh_dim, placement in enumerate(placements):
        if not isinstance(placement, Shard):
            continue
        dim, parts = placement.dim % len(shape), mesh.size(mesh_dim)
        chunk = -(-shape[dim] // parts)
        start = min(chunk * coordinate[mesh_dim], shape[dim])
        shape[dim], offset[dim] = min(chunk, shape[dim] - start), offset[dim] + start
    return tuple(shape), (() if skip_offset else tuple(offset))
