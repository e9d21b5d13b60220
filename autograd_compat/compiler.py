"""torch.compiler: reset, disable, is_compiling and the tracer's decorators for torch.compile."""

from ._compile.api import disable as disable
from ._compile.api import is_compiling as is_compiling
from ._compile.api import reset as reset
from ._dynamo.decorators import allow_in_graph as allow_in_graph
from ._dynamo.decorators import assume_constant_result as assume_constant_result

__all__ = [
    "allow_in_graph",
    "assume_constant_result",
    "cudagraph_mark_step_begin",
    "disable",
    "is_compiling",
    "is_dynamo_compiling",
    "is_exporting",
    "reset",
]


def is_dynamo_compiling() -> bool:
    """True while torch.compile traces a function (the same as `is_compiling` here)."""
    return is_compiling()


def is_exporting() -> bool:
    """Whether `torch.export` is tracing: never here (this library has no torch.export)."""
    return False


def cudagraph_mark_step_begin() -> None:
    """Mark the start of a step for CUDA graph trees, which torch.compile here does not use."""
