"""torch.distributed.tensor.experimental: `implicit_replication`. Its other names
(`context_parallel`, `local_map`, `register_sharding`) raise an AttributeError naming them."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from ...._alias import missing_attribute as _missing_attribute

__all__ = ["implicit_replication"]


@contextlib.contextmanager
def implicit_replication() -> Iterator[None]:
    """Within the block, plain tensors among a DTensor op's arguments are taken as replicated:
    here they always are (a DTensor's value is the global array), so the block changes
    nothing."""
    yield


def __getattr__(name: str):
    return _missing_attribute(__name__, name)
