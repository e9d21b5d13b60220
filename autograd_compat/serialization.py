"""torch.serialization: `save`, `load`, and the allow-list of `load(weights_only=True)`.

`add_safe_globals` lets a weights-only load accept more globals (a class of your own, numpy's
array reconstruction) that you trust; modules sys, os, posix and nt stay refused.
"""

from __future__ import annotations

from collections.abc import Callable

from ._serialization import load, save
from ._serialization import weights_only as _weights_only

__all__ = [
    "add_safe_globals",
    "clear_safe_globals",
    "get_safe_globals",
    "load",
    "safe_globals",
    "save",
]


def add_safe_globals(safe_globals: list[Callable | tuple[Callable, str]]) -> None:
    """Allow these globals in `load(weights_only=True)`, by their `module.qualname` or the
    name given with each (an (object, "module.name") pair).

    Example::

        >>> import io
        >>> from fractions import Fraction
        >>> buffer = io.BytesIO()
        >>> torch.save({"lr": Fraction(1, 3)}, buffer)
        >>> torch.serialization.add_safe_globals([Fraction])
        >>> torch.load(io.BytesIO(buffer.getvalue()))["lr"]
        Fraction(1, 3)
        >>> torch.serialization.clear_safe_globals()
    """
    _weights_only.allow(safe_globals)


def clear_safe_globals() -> None:
    """Forget every global `add_safe_globals` allowed."""
    _weights_only.user_globals.clear()


def get_safe_globals() -> list:
    """The globals `add_safe_globals` allowed (each as given: an object or a pair)."""
    return [
        obj if _weights_only.full_name(obj) == name else (obj, name)
        for name, obj in _weights_only.user_globals.items()
    ]


class safe_globals:
    """A context manager allowing `safe_globals` in weights-only loads within it."""

    def __init__(self, safe_globals: list[Callable | tuple[Callable, str]]) -> None:
        self.safe_globals = safe_globals
        self._before: dict = {}

    def __enter__(self) -> None:
        self._before = dict(_weights_only.user_globals)
        _weights_only.allow(self.safe_globals)

    def __exit__(self, *exc_info) -> None:
        _weights_only.user_globals.clear()
        _weights_only.user_globals.update(self._before)
