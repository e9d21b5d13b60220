"""torch._dynamo: the settings, counters and errors of torch.compile that scripts reach for."""

from .._compile import config as config
from .._compile.api import reset as reset
from . import exc as exc
from . import utils as utils
from .decorators import (
    allow_in_graph,
    assume_constant_result,
    disable,
    is_compiling,
    mark_static_address,
)

__all__ = [
    "allow_in_graph",
    "assume_constant_result",
    "config",
    "disable",
    "exc",
    "is_compiling",
    "mark_static_address",
    "reset",
    "utils",
]
