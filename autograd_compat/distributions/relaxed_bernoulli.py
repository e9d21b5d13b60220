"""torch.distributions.relaxed_bernoulli (see `not_yet`)."""

from .not_yet import RelaxedBernoulli

__all__ = ["RelaxedBernoulli"]
