"""torch.fx.graph: `Graph`, the captured program (not available yet)."""

from ._unavailable import Unavailable

__all__ = ["Graph"]


class Graph(Unavailable):
    """An fx program: constructing one raises (fx program capture is not available yet)."""
