"""torch.cuda graphs: importable names; recording one raises an error naming it.

A CUDA graph replays a recorded sequence of kernels; `torch.compile` is this library's way to
run a step as one program. No capture ever runs, so `is_current_stream_capturing()` is False.
"""

from __future__ import annotations

from typing import Any

from .streams import Stream, unavailable

__all__ = ["CUDAGraph", "graph", "graph_pool_handle", "is_current_stream_capturing"]

_WHAT = "CUDA graphs"


def is_current_stream_capturing() -> bool:
    """Whether a CUDA graph capture is under way: never here."""
    return False


def graph_pool_handle() -> Any:
    """A memory pool handle for graph captures: not available here."""
    unavailable("torch.cuda.graph_pool_handle", _WHAT)


class CUDAGraph:
    """A CUDA graph: cannot be made here (use `torch.compile` to run a step as one program)."""

    def __new__(cls, keep_graph: bool = False) -> CUDAGraph:
        unavailable("torch.cuda.CUDAGraph", _WHAT)


class graph:
    """The context that captures a CUDA graph: cannot be entered here."""

    def __init__(
        self,
        cuda_graph: CUDAGraph,
        pool: Any = None,
        stream: Stream | None = None,
        capture_error_mode: str = "global",
        enable_annotations: bool = False,
        check_input_liveness: bool = False,
    ) -> None:
        unavailable("torch.cuda.graph", _WHAT)
