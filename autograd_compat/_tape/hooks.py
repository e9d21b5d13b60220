"""Hooks on tensors and nodes, run by the engine at the points PyTorch runs them.

Tensor hooks (`register_hook`) on a non-leaf live on its grad_fn (`pre_hooks`, keyed by
output number); a leaf keeps them itself (`_hooks_leaf`), as it keeps its post-accumulate
hooks (`_post_accumulate_hooks`), because its AccumulateGrad lives only as long as a graph
does. Node hooks (`grad_fn.register_hook` / `register_prehook`) live on the node. The order in
one node's turn is PyTorch's: tensor hooks, retain_grad, captures for `autograd.grad`, node
prehooks, the backward (or, for a leaf, accumulation and post-accumulate hooks), node hooks.

Also here: `saved_tensors_hooks` (pack when a node saves a value, unpack when the backward
reads it).
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from .._pure import dtypes as _dtypes
from .._state.modes import modes
from .._state.node import Node, RemovableHandle
from .._state.tensor import Tensor


# ----------------------------------------------------------------------------- checks
def _hook_name(hook) -> str:
    return getattr(hook, "__name__", "<unknown>")


def _type_name(tensor: Tensor) -> str:
    return f"torch.{_dtypes.LEGACY_TYPE_NAMES[tensor.dtype]}"


def check_hook_result(result, grad, hook):
    """A hook's replacement for `grad` (None keeps it), checked as PyTorch checks it."""
    if result is None:
        return grad
    if grad is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not isinstance(result, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
    if result.dtype is not grad.dtype:
        raise RuntimeError(
            f"hook '{_hook_name(hook)}' has changed the type of value (was "
            f"{_type_name(grad)} got {_type_name(result)})"
        )
    if result.shape != grad.shape:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the size of value")
    return result


def _check_hook_tuple(result, grads, hook) -> list:
    """A node hook's replacement for a tuple of gradients (None keeps them)."""
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
    if len(result) != len(grads):
        raise RuntimeError(
            f"hook '{_hook_name(hook)}' has returned an incorrect number of values (got "
            f"{len(result)}, but expected {len(grads)})"
        )
    return [None if r is None else check_hook_result(r, g, hook) for r, g in zip(result, grads)]


# ----------------------------------------------------------------------------- registration
def register_tensor_hook(tensor, hook) -> RemovableHandle:
    """Register `hook(grad) -> Tensor | None` on `tensor` (leaf or not).

    A leaf keeps its hooks itself (its AccumulateGrad lives only as long as a graph does);
    a non-leaf's hooks live on its grad_fn, keyed by output number.
    """
    if not tensor.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    node = tensor.grad_fn
    if node is None:
        if tensor._hooks_leaf is None:
            tensor._hooks_leaf = OrderedDict()
        table = tensor._hooks_leaf
    else:
        if node.pre_hooks is None:
            node.pre_hooks = {}
            node.hot = None  # (see `_state/node`)
        table = node.pre_hooks.setdefault(tensor.output_nr, OrderedDict())
    handle = RemovableHandle(table)
    table[handle.id] = hook
    return handle


def register_post_accumulate_grad_hook(tensor, hook) -> RemovableHandle:
    """Register `hook(tensor)` to run after a backward has accumulated into `tensor.grad`.

    Leaves only, as in PyTorch. The hook sees the tensor (read `.grad` there) and returns
    None. It runs for `backward()`, not for `autograd.grad()`, which accumulates nothing.

    Example::

        >>> w = torch.ones(2, requires_grad=True)
        >>> h = w.register_post_accumulate_grad_hook(lambda p: print(p.grad))
        >>> (w * 3).sum().backward()
        tensor([3., 3.])
    """
    if not tensor.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if tensor.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    table = tensor._post_accumulate_hooks
    if table is None:
        table = tensor._post_accumulate_hooks = OrderedDict()
    handle = RemovableHandle(table)
    table[handle.id] = hook
    return handle


# ----------------------------------------------------------------------------- running
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
                cts[output_nr] = check_hook_result(hook(cts[output_nr]), cts[output_nr], hook)
    return cts


def run_node_prehooks(node, cts: list) -> list:
    """`grad_fn.register_prehook(hook(grad_outputs))`: may replace the output cotangents."""
    if not node.prehooks_node:
        return cts
    for hook in list(node.prehooks_node.values()):
        result = hook(tuple(cts))
        if result is not None:
            cts = _check_hook_tuple(result, cts, hook)
    return cts


def run_node_hooks(node, grad_inputs: list, grad_outputs: list) -> None:
    """`grad_fn.register_hook(hook(grad_inputs, grad_outputs))`, may replace grad_inputs."""
    if not node.hooks:
        return
    for hook in list(node.hooks.values()):
        result = hook(tuple(grad_inputs), tuple(grad_outputs))
        if result is not None:
            grad_inputs[:] = _check_hook_tuple(result, grad_inputs, hook)


def run_post_accumulate_hooks(variable) -> None:
    """Call the post-accumulate hooks of a leaf; they must return None, as in PyTorch."""
    table = variable._post_accumulate_hooks
    if table:
        for hook in list(table.values()):
            result = hook(variable)
            if result is not None:
                if not isinstance(result, Tensor):
                    raise TypeError(
                        f"expected Variable, but hook returned '{type(result).__name__}'"
                    )
                raise RuntimeError("Tensor post accumulate grad hooks should return None.")


# ----------------------------------------------------------------------------- saved tensors
class Packed:
    """A value saved through `saved_tensors_hooks`: the pack hook's result and its unpack."""

    __slots__ = ("packed", "unpack")

    def __init__(self, packed, unpack) -> None:
        self.packed = packed
        self.unpack = unpack

    def value(self):
        result = self.unpack(self.packed)
        if not isinstance(result, Tensor):
            raise TypeError(
                "Output of saved tensor unpack_hook expected to be a Tensor but got result of "
                f"type {type(result).__name__}"
            )
        return result._value


class PackedNode(Node):
    """A Node whose saved values went through a pack hook: unpacked each time they are read."""

    __slots__ = ()

    def saved_values(self) -> tuple:
        saved = Node.saved_values(self)
        return tuple(s.value() if type(s) is Packed else s for s in saved)


class _SavedHooks(threading.local):
    """Per-thread stack of (pack, unpack) pairs; the innermost one applies, as in PyTorch."""

    def __init__(self) -> None:
        self.stack: list = []
        self.disabled: str | None = None


saved_hooks = _SavedHooks()


def push_saved_hooks(pack, unpack) -> None:
    if saved_hooks.disabled is not None:
        raise RuntimeError(saved_hooks.disabled)
    saved_hooks.stack.append((pack, unpack))
    modes.saved_hooks += 1
    modes.refresh_special()


def pop_saved_hooks() -> None:
    saved_hooks.stack.pop()
    modes.saved_hooks -= 1
    modes.refresh_special()


def current_saved_hooks():
    """The (pack, unpack) pair in effect in this thread, or None."""
    stack = saved_hooks.stack
    return stack[-1] if stack else None


def pack_value(tensor: Tensor, hooks: tuple):
    """Apply the pack hook to a saved tensor; the result is unpacked when the backward reads it."""
    pack, unpack = hooks
    with _disabled_inside_hook():
        packed = pack(tensor)
    return Packed(packed, unpack)


class _disabled_inside_hook:
    """PyTorch runs pack hooks with saved-tensor hooks disabled (no recursion)."""

    def __enter__(self) -> None:
        self.previous = saved_hooks.stack
        saved_hooks.stack = []

    def __exit__(self, *exc_info: object) -> None:
        saved_hooks.stack = self.previous
