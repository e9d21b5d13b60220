"""torch.nn.attention: the SDPA backend switch and flex_attention.

`scaled_dot_product_attention` has one implementation here (XLA's fused program), which
computes what every PyTorch backend computes, so `sdpa_kernel` checks its arguments and
changes nothing.
"""

from __future__ import annotations

import contextlib
import enum

from ..._alias import missing_attribute as _missing_attribute
from . import flex_attention

__all__ = ["WARN_FOR_UNFUSED_KERNELS", "SDPBackend", "flex_attention", "sdpa_kernel"]

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.IntEnum):
    """The backends of scaled dot product attention, as PyTorch numbers them."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


@contextlib.contextmanager
def sdpa_kernel(backends: list[SDPBackend] | SDPBackend, set_priority: bool = False):
    """Select backends for scaled dot product attention inside the context.

    Every backend computes the same function, and this library has one implementation of it,
    so the selection is checked and the attention runs as it does outside.
    """
    chosen = [backends] if isinstance(backends, SDPBackend) else backends
    if not isinstance(chosen, (list, tuple)) or not all(isinstance(b, SDPBackend) for b in chosen):
        raise AssertionError(
            "Backend must be an instance of SDPBackend or a list of SDPBackend instances, "
            f"got {type(backends).__name__}"
        )
    yield


def __getattr__(name: str):
    """`torch.nn.attention.X` that this module lacks: an AttributeError saying so."""

    return _missing_attribute(__name__, name)
