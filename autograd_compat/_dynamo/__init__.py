"""torch._dynamo: the settings, counters and errors of torch.compile that scripts reach for."""

from .._compile import config as config
from .._compile.api import reset as reset
from .._compile.module import OptimizedModule as OptimizedModule
from . import exc as exc
from . import utils as utils

__all__ = ["OptimizedModule", "config", "exc", "reset", "utils"]
