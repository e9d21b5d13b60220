"""torch._dynamo's decorators that mark functions for the tracer.

`torch.compile` here traces a whole call with JAX, running every Python function it meets, so
a function allowed in the graph is traced as it is, and a function assumed constant runs once
per compiled entry with its result baked in, as Dynamo does.
"""

from __future__ import annotations

from typing import Any

from .._compile.api import disable as disable
from .._compile.api import is_compiling as is_compiling
from .._state.tensor import Tensor

__all__ = [
    "allow_in_graph",
    "assume_constant_result",
    "disable",
    "is_compiling",
    "mark_static_address",
]


def allow_in_graph(fn):
    """Put calls of `fn` (or of each function in a list) into the compiled program as they are.

    Every function is traced into the program here, so `fn` comes back unchanged.
    """
    if isinstance(fn, (list, tuple)):
        return [allow_in_graph(x) for x in fn]
    if not callable(fn):
        raise AssertionError("allow_in_graph expects a callable")
    return fn


def assume_constant_result(fn):
    """Treat the result of `fn` as a constant of the compiled program.

    The tracer runs `fn` while it builds a program, and a Python value it returns is a
    constant of that program, so `fn` comes back unchanged.
    """
    return fn


def mark_static_address(t: Any, guard: bool = False) -> None:
    """Mark a tensor whose storage never moves (a hint for CUDA graphs, which JAX does not
    use): nothing to record here."""
    if not isinstance(t, Tensor):
        raise TypeError(f"mark_static_address expects a tensor but received {type(t)}")
