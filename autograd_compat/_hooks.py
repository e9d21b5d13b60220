"""Hooks on tensors and nodes, run by the engine at the points PyTorch runs them.

Tensor hooks (`register_hook`) live on the node that produces the tensor's gradient: its
grad_fn for a non-leaf, its AccumulateGrad for a leaf. They run before the gradient is
captured, retained or accumulated, and may replace it.
"""

from __future__ import annotations

import itertools

_handle_ids = itertools.count()


class RemovableHandle:
    """Returned by every register_*hook; `remove()` unregisters the hook."""

    def __init__(self, table: dict) -> None:
        self.id = next(_handle_ids)
        self._table = table

    def remove(self) -> None:
        self._table.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.remove()


def _check_hook_result(result, grad, where: str):
    from ._tensor import Tensor

    if result is None:
        return grad
    if not isinstance(result, Tensor):
        raise TypeError(
            f"{where} hook must return a Tensor or None, but got {type(result).__name__}"
        )
    if grad is not None and result.shape != grad.shape:
        raise RuntimeError(
            f"hook '{where}' has changed the size of value: expected {list(grad.shape)}, "
            f"got {list(result.shape)}"
        )
    return result


def register_tensor_hook(tensor, hook) -> RemovableHandle:
    """Register `hook(grad) -> Tensor | None` on `tensor` (leaf or not).

    A leaf keeps its hooks itself (its AccumulateGrad lives only as long as a graph does);
    a non-leaf's hooks live on its grad_fn, keyed by output number.
    """
    if not tensor.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if tensor.grad_fn is None:
        if tensor._hooks_leaf is None:
            tensor._hooks_leaf = {}
        table = tensor._hooks_leaf
    else:
        node = tensor.grad_fn
        if node.pre_hooks is None:
            node.pre_hooks = {}
        table = node.pre_hooks.setdefault(tensor.output_nr, {})
    handle = RemovableHandle(table)
    table[handle.id] = hook
    return handle


def run_tensor_hooks(node, cts: list) -> list:
    """Apply the tensor hooks registered for each output of `node` to its cotangent."""
    variable = getattr(node, "variable", None)
    tables = {0: variable._hooks_leaf} if variable is not None else node.pre_hooks
    if not tables:
        return cts
    cts = list(cts)
    for output_nr, table in tables.items():
        if not table:
            continue
        for hook in list(table.values()):
            if cts[output_nr] is not None:
                cts[output_nr] = _check_hook_result(hook(cts[output_nr]), cts[output_nr], "tensor")
    return cts


def run_node_prehooks(node, cts: list) -> list:
    """`grad_fn.register_prehook(hook(grad_outputs))`: may replace the output cotangents."""
    if not node.prehooks_node:
        return cts
    for hook in list(node.prehooks_node.values()):
        result = hook(tuple(cts))
        if result is not None:
            cts = [_check_hook_result(r, c, "prehook") for r, c in zip(result, cts)]
    return cts


def run_node_hooks(node, grad_inputs: list, grad_outputs: list) -> None:
    """`grad_fn.register_hook(hook(grad_inputs, grad_outputs))`, may replace grad_inputs."""
    if not node.hooks:
        return
    for hook in list(node.hooks.values()):
        result = hook(tuple(grad_inputs), tuple(grad_outputs))
        if result is not None:
            grad_inputs[:] = [_check_hook_result(r, g, "node") for r, g in zip(result, grad_inputs)]
