"""torch.fx.passes.shape_prop: `ShapeProp`, which runs a GraphModule and records each node's
tensor metadata in `node.meta["tensor_meta"]`."""

from __future__ import annotations

from typing import Any, NamedTuple

from ..._pure.layouts import channels_last, channels_last_3d, contiguous_format
from ..._state.tensor import Tensor
from ..interpreter import Interpreter
from ..node import Node, map_aggregate

__all__ = ["ShapeProp", "TensorMetadata"]


class TensorMetadata(NamedTuple):
    """The shape, dtype and layout facts of one tensor value."""

    shape: Any
    dtype: Any
    requires_grad: bool
    stride: tuple[int, ...]
    memory_format: Any
    is_quantized: bool
    qparams: dict[str, Any]


def _extract_tensor_metadata(result: Tensor) -> TensorMetadata:
    """`result`'s metadata; its memory format is the first of contiguous, channels_last and
    channels_last_3d it is laid out in (None if none)."""
    formats = (contiguous_format, channels_last, channels_last_3d)
    memory_format = next((f for f in formats if result.is_contiguous(memory_format=f)), None)
    return TensorMetadata(
        result.shape,
        result.dtype,
        result.requires_grad,
        result.stride(),
        memory_format,
        False,
        {},
    )


class ShapeProp(Interpreter):
    """Runs the graph on example inputs (`propagate`), storing in each node's meta its
    `tensor_meta` (a TensorMetadata, or the same structure of them for containers) and
    `type` (the value's type)."""

    def run_node(self, n: Node) -> Any:
        result = super().run_node(n)
        found = []

        def extract(value: Any) -> Any:
            if isinstance(value, Tensor):
                found.append(True)
                return _extract_tensor_metadata(value)
            return value

        meta = map_aggregate(result, extract)
        if found:
            n.meta["tensor_meta"] = meta
        n.meta["type"] = type(result)
        return result

    def propagate(self, *args) -> Any:
        """Run the graph on `args`, recording the metadata; returns its output."""
        return super().run(*args)
