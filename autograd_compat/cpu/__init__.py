"""torch.cpu: the CPU's mixed-precision spellings (`torch.cpu.amp`)."""

from .._alias import missing_attribute as _missing_attribute
from . import amp

__all__ = ["amp"]


def __getattr__(name: str):
    return _missing_attribute(__name__, name)
