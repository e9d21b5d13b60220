"""torch._dynamo: the settings, counters and errors of torch.compile that scripts reach for."""

from .._compile import config as config
from .._compile.api import reset as reset
from . import exc as exc
from . import utils as utils

__all__ = ["config", "exc", "reset", "utils"]
