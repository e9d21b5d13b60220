"""torch._dynamo.exc: what `torch.compile(fullgraph=True)` raises where it cannot trace."""

from .._compile.function import Unsupported as Unsupported

__all__ = ["Unsupported"]
