"""The tensors a compiled function reaches by name: its globals and closed-over variables.

An entry's program takes the captured tensors' values as inputs, read from the tensor objects
its discovery trace met. A global or a closed-over variable rebound to another tensor
(`scale = torch.tensor(...)` before each call) would leave the program reading the old object:
a stale value and no error. So an entry keeps, for each name the function's code reads that
held a tensor when it was traced, the object it held (`tensor_bindings`), and holds only while
every such name still holds it (`first_rebound`). Tensors reached through attributes (a
module's plain tensor attribute replaced) are not followed: the discovery trace cannot tell
how they were reached.
"""

from __future__ import annotations

import types
from typing import Any

from .._state.tensor import Tensor

# (a function's globals dict and a name, or a closure cell and its variable's name, the tensor)
Binding = tuple[Any, str, Tensor]


def _names(code: types.CodeType) -> set[str]:
    """The global and attribute names `code` and the functions nested in it load."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):  # a lambda, comprehension or inner function
            names |= _names(const)
    return names


def tensor_bindings(fn) -> tuple[Binding, ...]:
    """Each global `fn`'s code names and each variable it closes over that holds a tensor
    now, with that tensor; none for a callable that is no Python function."""
    fn = getattr(fn, "__func__", fn)  # a bound method's function
    code = getattr(fn, "__code__", None)
    if not isinstance(code, types.CodeType):
        return ()
    namespace = fn.__globals__
    found: list[Binding] = []
    for name in sorted(_names(code)):
        value = namespace.get(name)
        if isinstance(value, Tensor):
            found.append((namespace, name, value))
    for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
        try:
            value = cell.cell_contents
        except ValueError:  # a variable not assigned yet
            continue
        if isinstance(value, Tensor):
            found.append((cell, name, value))
    return tuple(found)


def first_rebound(bindings: tuple[Binding, ...]) -> str | None:
    """The name of the first binding that no longer holds its tensor, or None."""
    for place, name, tensor in bindings:
        if type(place) is dict:
            current = place.get(name)
        else:
            try:
                current = place.cell_contents
            except ValueError:  # the variable was deleted
                return name
        if current is not tensor:
            return name
    return None
