"""torch.distributed.tensor.placement_types: how a tensor lies over each mesh dimension."""

from __future__ import annotations

import dataclasses

__all__ = ["Partial", "Placement", "Replicate", "Shard"]


class Placement:
    """How a tensor lies over one mesh dimension: `Shard`, `Replicate` or `Partial`."""

    def is_shard(self, dim: int | None = None) -> bool:
        return isinstance(self, Shard) and (dim is None or self.dim == dim)

    def is_replicate(self) -> bool:
        return isinstance(self, Replicate)

    def is_partial(self, reduce_op: str | None = None) -> bool:
        return isinstance(self, Partial) and reduce_op in (None, self.reduce_op)


@dataclasses.dataclass(frozen=True)
class Shard(Placement):
    """Split tensor dimension `dim` over one mesh dimension."""

    dim: int


@dataclasses.dataclass(frozen=True)
class Replicate(Placement):
    """A whole copy on every device of one mesh dimension."""


@dataclasses.dataclass(frozen=True)
class Partial(Placement):
    """Values still to be reduced (by `reduce_op`) over one mesh dimension."""

    reduce_op: str = "sum"


@dataclasses.dataclass(frozen=True)
class _StridedShard(Placement):
    """A shard of a tensor dimension already split `split_factor` ways (FSDP over tensor
    parallelism); named here for the libraries that import it."""

    dim: int
    split_factor: int = 1
