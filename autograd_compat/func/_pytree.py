"""PyTorch's pytrees for torch.func: flatten the arguments and outputs of a transformed
function to Tensor leaves and back, and spread vmap's in_dims/out_dims over them."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from .._state.tensor import Tensor


def is_tensor(x: object) -> bool:
    return isinstance(x, Tensor)


# PyTorch's pytrees: tuples, lists, namedtuples, dicts and OrderedDicts are nodes (dicts in
# insertion order); everything else (a Tensor, None, a number, torch.Size) is a leaf.
# A spec is `LEAF` or (node type, dict keys or None, child specs); specs compare with ==.
LEAF = "*"


def flatten(tree: Any) -> tuple[list, Any]:
    """(leaves, spec) of a pytree, as torch.utils._pytree flattens it."""
    leaves: list = []

    def walk(node: Any) -> Any:
        kind = type(node)
        if kind in (tuple, list) or (isinstance(node, tuple) and hasattr(node, "_fields")):
            return (kind, None, tuple(walk(child) for child in node))
        if kind in (dict, OrderedDict):
            return (kind, tuple(node), tuple(walk(node[k]) for k in node))
        leaves.append(node)
        return LEAF

    return leaves, walk(tree)


def unflatten(spec: Any, leaves: Sequence[Any]) -> Any:
    """The pytree of shape `spec` holding `leaves`."""
    found = iter(leaves)

    def build(part: Any) -> Any:
        if part is LEAF:
            return next(found)
        kind, keys, children = part
        values = [build(child) for child in children]
        if keys is not None:
            return kind(zip(keys, values))
        return kind(*values) if hasattr(kind, "_fields") else kind(values)

    return build(spec)


def broadcast_prefix(prefix: Any, tree: Any) -> list | None:
    """One value of `prefix` per leaf of `tree` (an int or None stands for a whole subtree, as
    vmap's in_dims and out_dims do), or None when the structures do not match."""
    if flatten(prefix)[1] is LEAF:
        return [prefix] * len(flatten(tree)[0])
    if isinstance(prefix, dict):
        if not isinstance(tree, dict) or set(prefix) != set(tree):
            return None
        keys: Sequence[Any] = list(tree)
    else:
        if not isinstance(tree, type(prefix)) or len(prefix) != len(tree):
            return None
        keys = range(len(tree))
    found: list = []
    for key in keys:
        part = broadcast_prefix(prefix[key], tree[key])
        if part is None:
            return None
        found.extend(part)
    return found
