"""Stand-ins for PyTorch names that import but cannot run here: calling one raises a
NotImplementedError that names it and says why."""

from __future__ import annotations


def raising(qualified_name: str, reason: str):
    """A function named like `qualified_name`'s last part that raises when called."""

    def unavailable(*args, **kwargs):
        raise NotImplementedError(f"{qualified_name}: {reason}")

    unavailable.__name__ = unavailable.__qualname__ = qualified_name.rpartition(".")[2]
    return unavailable
