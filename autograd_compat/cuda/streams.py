"""torch.cuda streams and events: importable names, for code that mentions them in signatures
or behind an `is_available()` check.

JAX orders the work on each device itself and offers no streams, so making a Stream or an
Event raises an error naming it. `stream(None)` and `StreamContext(None)` are what PyTorch
makes them, a context that does nothing, and they work.
"""

from __future__ import annotations

from typing import Any, NoReturn

__all__ = [
    "Event",
    "Stream",
    "StreamContext",
    "current_stream",
    "default_stream",
    "set_stream",
    "stream",
]


def unavailable(name: str, what: str) -> NoReturn:
    """Raise the RuntimeError for a CUDA stream-level feature this library does not have."""
    raise RuntimeError(
        f"{name}: {what} are not available in autograd_compat (JAX schedules the work on "
        "each device itself); run the code path that does not use them"
    )


class Stream:
    """A CUDA stream: cannot be made here (see the module docstring)."""

    def __new__(cls, device=None, priority: int = 0, **kwargs: Any) -> Stream:
        unavailable("torch.cuda.Stream", "CUDA streams")


class Event:
    """A CUDA event: cannot be made here (see the module docstring)."""

    def __new__(
        cls,
        enable_timing: bool = False,
        blocking: bool = False,
        interprocess: bool = False,
        external: bool = False,
    ) -> Event:
        unavailable("torch.cuda.Event", "CUDA events")


class StreamContext:
    """Select `stream` for the work queued inside; a no-op for None, as in PyTorch."""

    def __init__(self, stream: Stream | None) -> None:
        if stream is not None:
            unavailable("torch.cuda.StreamContext", "CUDA streams")
        self.stream = stream

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc_info: object) -> None:
        return None


def stream(stream: Stream | None) -> StreamContext:
    """`StreamContext(stream)`: a context that does nothing for None."""
    return StreamContext(stream)


def current_stream(device=None) -> Stream:
    """The current CUDA stream: not available here."""
    unavailable("torch.cuda.current_stream", "CUDA streams")


def default_stream(device=None) -> Stream:
    """The default CUDA stream: not available here."""
    unavailable("torch.cuda.default_stream", "CUDA streams")


def set_stream(stream: Stream) -> None:
    """Select a CUDA stream: not available here."""
    unavailable("torch.cuda.set_stream", "CUDA streams")
