"""torch.signal.windows: window functions (hann, hamming, gaussian, kaiser, ...)."""

from .windows import *  # noqa: F403
from .windows import __all__ as __all__
