"""PyTorch's layout and memory-format constants (`torch.strided`, `torch.contiguous_format`...).

Every tensor here is dense and strided; the other layouts exist so code that names or compares
them runs. Memory formats are accepted where PyTorch takes them and change nothing: XLA picks
its own physical layouts.
"""

from __future__ import annotations

__all__ = [
    "channels_last",
    "channels_last_3d",
    "contiguous_format",
    "layout",
    "memory_format",
    "preserve_format",
    "sparse_bsc",
    "sparse_bsr",
    "sparse_coo",
    "sparse_csc",
    "sparse_csr",
    "strided",
]


class _Named:
    """A constant that prints as `torch.<name>` and pickles as itself."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return f"torch.{self._name}"

    def __reduce__(self) -> str:
        return self._name


class layout(_Named):
    """A tensor's memory layout (`Tensor.layout`): always `torch.strided` here."""

    __slots__ = ()


class memory_format(_Named):
    """A memory format argument (`contiguous(memory_format=...)`); accepted, not applied."""

    __slots__ = ()


strided = layout("strided")
sparse_coo = layout("sparse_coo")
sparse_csr = layout("sparse_csr")
sparse_csc = layout("sparse_csc")
sparse_bsr = layout("sparse_bsr")
sparse_bsc = layout("sparse_bsc")

contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")
