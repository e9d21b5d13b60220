"""torch.compiler: reset, disable and is_compiling for torch.compile."""

from ._compile.api import disable as disable
from ._compile.api import is_compiling as is_compiling
from ._compile.api import reset as reset

__all__ = ["disable", "is_compiling", "reset"]
