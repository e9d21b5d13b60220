"""`torch.SymInt`, `SymFloat`, `SymBool` and the `sym_*` functions.

Shapes here are always concrete Python ints (a traced program is specialized to its shapes),
so no symbolic number is ever made: the classes exist for `isinstance` checks and
annotations, making one raises, and the `sym_*` functions compute on plain numbers, as
PyTorch's do when given them.
"""

from __future__ import annotations

import builtins

__all__ = [
    "SymBool",
    "SymFloat",
    "SymInt",
    "sym_float",
    "sym_int",
    "sym_ite",
    "sym_max",
    "sym_min",
    "sym_not",
    "sym_sum",
]


class _Symbolic:
    """A symbolic number of PyTorch's dynamic shapes: none exists here."""

    def __init__(self, node=None) -> None:
        raise TypeError(
            f"torch.{type(self).__name__} cannot be made in autograd_compat: shapes are "
            "concrete ints here (no symbolic shapes); use a Python number"
        )


class SymInt(_Symbolic):
    """A symbolic int (never made here: shapes are ints)."""


class SymFloat(_Symbolic):
    """A symbolic float (never made here)."""


class SymBool(_Symbolic):
    """A symbolic bool (never made here)."""


def sym_int(a) -> int:
    """`int(a)`, truncating a float toward zero."""
    return builtins.int(a)


def sym_float(a) -> float:
    """`float(a)`."""
    return builtins.float(a)


def sym_max(a, b):
    """`max(a, b)`."""
    return builtins.max(a, b)


def sym_min(a, b):
    """`min(a, b)`."""
    return builtins.min(a, b)


def sym_not(a) -> bool:
    """`not a`."""
    return not a


def sym_sum(args):
    """`sum(args)`."""
    return builtins.sum(args)


def sym_ite(b, t, f):
    """`t if b else f`, with PyTorch's checks: `b` a bool, `t` and `f` of one type."""
    if not isinstance(b, builtins.bool):
        raise AssertionError(f"expected SymBool or bool, got {type(b)}")
    if type(t) is not type(f):
        raise AssertionError(f"type mismatch: {type(t)} vs {type(f)}")
    return t if b else f
