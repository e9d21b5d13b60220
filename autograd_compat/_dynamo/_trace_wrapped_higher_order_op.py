"""torch._dynamo._trace_wrapped_higher_order_op: `TransformGetItemToIndex`.

PyTorch needs this mode so that `tensor[i]` with a 0-d index tensor `i` stays a tensor
operation (an index, not a `.item()` and a view) inside `vmap` and mask functions. Here
indexing by a tensor is always a tensor operation, traced under `torch.vmap` as a gather, so
the mode has nothing to change.
"""

from __future__ import annotations

__all__ = ["TransformGetItemToIndex"]


class TransformGetItemToIndex:
    """Inside the context, `tensor[index_tensor]` is an index operation (always, here)."""

    def __enter__(self) -> TransformGetItemToIndex:
        return self

    def __exit__(self, *exc_info: object) -> None:
        return None
