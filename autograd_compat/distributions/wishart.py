"""torch.distributions.wishart (see `not_yet`)."""

from .not_yet import Wishart

__all__ = ["Wishart"]
