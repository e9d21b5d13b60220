"""torch._dynamo: the settings, counters and errors of torch.compile that scripts reach for."""

from .._compile import config as config
from .._compile.api import reset as reset
from .._compile.module import OptimizedModule as OptimizedModule
from . import eval_frame as eval_frame
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
    "OptimizedModule",
    "allow_in_graph",
    "assume_constant_result",
    "config",
    "eval_frame",
    "disable",
    "exc",
    "is_compiling",
    "mark_static_address",
    "reset",
    "utils",
]
