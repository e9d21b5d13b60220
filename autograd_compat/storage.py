"""torch.storage: the storage classes (`UntypedStorage`, `TypedStorage`), as
`_ops/storage.py` defines them."""

from __future__ import annotations

from ._ops.storage import TypedStorage, UntypedStorage

__all__ = ["TypedStorage", "UntypedStorage"]
