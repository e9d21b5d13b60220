"""torch.utils."""

from . import data
