"""torch.cpu: the CPU's mixed-precision spellings (`torch.cpu.amp`)."""

from . import amp

__all__ = ["amp"]


def __getattr__(name: str):
    from .._alias import missing_attribute

    return missing_attribute(__name__, name)
