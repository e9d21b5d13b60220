"""torch.fx.subgraph_rewriter: `replace_pattern` on a captured program (not available yet)."""

from ._unavailable import unavailable

__all__ = ["replace_pattern"]


def replace_pattern(gm, pattern, replacement):
    """Replace matches of `pattern` in GraphModule `gm`: raises (no fx program capture)."""
    raise unavailable("replace_pattern")
