"""torch.fx.proxy: `Proxy`, the stand-in value a symbolic trace passes through a program."""

from ._unavailable import Unavailable

__all__ = ["Proxy"]


class Proxy(Unavailable):
    """A traced value: constructing one raises (fx program capture is not available yet)."""
