"""torch._C: the few names of PyTorch's compiled core that libraries reach for by that path.

`_TensorMeta` is the metaclass of `torch.Tensor` (`isinstance(torch.Tensor, _TensorMeta)`),
and `_nn._parse_to` parses the arguments of `.to(...)` as PyTorch does.
"""

from __future__ import annotations

from .._state.tensor import Tensor
from . import _nn

__all__ = ["_TensorMeta", "_nn"]

_TensorMeta = type(Tensor)


def __getattr__(name: str):
    from .._alias import missing_attribute

    return missing_attribute(__name__, name)
