"""torch.fx.node: `Node`, one operation of a captured program, and its helpers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._unavailable import Unavailable, unavailable

__all__ = ["Node", "has_side_effect", "map_arg"]

Target = Callable[..., Any] | str  # what a Node calls: a function or a qualified name
Argument = Any  # a Node's argument: Nodes, containers of them, and plain values

_side_effectful_functions: set = set()


class Node(Unavailable):
    """An operation of an fx Graph: constructing one raises (no fx program capture yet)."""


def has_side_effect(fn):
    """Mark `fn` as having side effects, so dead-code elimination keeps its calls."""
    _side_effectful_functions.add(fn)
    return fn


def map_arg(a, fn):
    """Apply `fn` to each Node in `a`: there are no Nodes without fx program capture."""
    raise unavailable("map_arg")
