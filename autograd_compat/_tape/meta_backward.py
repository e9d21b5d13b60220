"""A backward from outputs on the meta device: no values to run the recorded vjps on, and
none needed, since a gradient has its input's shape and dtype. The graph is walked (by
`next_functions`) to the leaves it reaches, each given a meta gradient, as PyTorch's meta
backward gives; hooks do not run."""

from __future__ import annotations

import jax

from .._state.node import AccumulateGrad
from .._state.tensor import MetaTensor, Tensor


def on_meta(outputs: tuple) -> bool:
    """Whether a backward from `outputs` is a meta one (an output on the meta device)."""
    for output in outputs:
        if isinstance(output, MetaTensor):
            return True
    return False


def _reached(outputs: tuple) -> tuple[set, list]:
    """The ids of the nodes reachable from `outputs`' grad_fns, and the leaves reached."""
    seen: set = set()
    leaves: list = []
    stack = [o.grad_fn for o in outputs if o.grad_fn is not None]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            leaves.append(node.variable)
            continue
        for child, _ in node.next_functions:
            if child is not None:
                stack.append(child)
    return seen, leaves


def _meta_like(tensor: Tensor) -> Tensor:
    return MetaTensor._wrap(jax.ShapeDtypeStruct(tensor._stored.shape, tensor._stored.dtype))


def meta_backward(outputs: tuple, targets: tuple | None, accumulate: bool) -> list:
    """Meta gradients of `targets` (None: every leaf reached, into `.grad` when
    `accumulate`); one per target, None where the graph does not reach it."""
    seen, leaves = _reached(outputs)
    if targets is None:
        targets = tuple(leaves)
    leaf_ids = {id(leaf) for leaf in leaves}
    grads: list = []
    for target in targets:
        node = target.grad_fn
        hit = id(target) in leaf_ids if node is None else id(node) in seen
        grad = _meta_like(target) if hit else None
        if accumulate and grad is not None and (node is None or target._retains_grad):
            if target._grad is None:
                target._grad = grad
        grads.append(grad)
    return grads
