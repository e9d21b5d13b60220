"""torch.onnx.symbolic_helper: `parse_args`, the decorator of symbolic functions."""

from __future__ import annotations

__all__ = ["parse_args"]


def parse_args(*arg_descriptors):
    """Decorate a symbolic function: an export would convert its graph-value arguments by
    `arg_descriptors`; since only an export calls symbolic functions, they are kept as is."""

    def decorator(fn):
        return fn

    return decorator
