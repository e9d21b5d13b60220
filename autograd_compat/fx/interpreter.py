"""torch.fx.interpreter: running a GraphModule node by node (`Interpreter`, `Transformer`)."""

from ._unavailable import Unavailable

__all__ = ["Interpreter", "Transformer"]


class Interpreter(Unavailable):
    """Runs an fx GraphModule: constructing one raises (fx program capture not available)."""


class Transformer(Interpreter):
    """Rewrites an fx GraphModule: constructing one raises (fx program capture not available)."""
