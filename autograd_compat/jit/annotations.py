"""torch.jit.annotations: the type names TorchScript signatures use, for annotations only."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple, Union  # noqa: UP035 -- PyTorch's names

__all__ = [
    "Any",
    "BroadcastingList1",
    "BroadcastingList2",
    "BroadcastingList3",
    "Dict",
    "List",
    "Optional",
    "Tuple",
    "Union",
]


class _BroadcastingList:
    """`BroadcastingListN[T]`: a T or N of them in TorchScript; subscripting gives None, as in
    eager PyTorch, so it serves only as an annotation."""

    def __getitem__(self, types) -> None:
        return None


BroadcastingList1 = BroadcastingList2 = BroadcastingList3 = _BroadcastingList()
