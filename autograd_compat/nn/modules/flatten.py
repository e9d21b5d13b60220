"""Flatten and Unflatten."""

from __future__ import annotations

from .module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """Flatten dims start_dim..end_dim into one (by default all but the batch dim)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        ndim = input.ndim
        if ndim == 0:
            return input.reshape(1)
        start = self.start_dim % ndim
        end = self.end_dim % ndim
        if start > end:
            raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
        shape = tuple(input.shape)
        size = 1
        for s in shape[start : end + 1]:
            size *= s
        return input.reshape(shape[:start] + (size,) + shape[end + 1 :])

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Expand dim `dim` into `unflattened_size`."""

    def __init__(self, dim: int, unflattened_size) -> None:
        super().__init__()
        self.dim = dim
        self.unflattened_size = tuple(unflattened_size)

    def forward(self, input):
        shape = tuple(input.shape)
        dim = self.dim % len(shape)
        return input.reshape(shape[:dim] + self.unflattened_size + shape[dim + 1 :])

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
