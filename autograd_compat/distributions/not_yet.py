"""Distributions that libraries import at module level (peft's Poly router and MonteCLoRA
layers) but this library does not implement yet: each imports, and making one raises a
NotImplementedError that names it."""

from __future__ import annotations

from .distribution import Distribution


class _NotYet(Distribution):
    """A distribution class that exists so its importers load; constructing it raises."""

    def __init__(self, *args, **kwargs) -> None:
        raise NotImplementedError(
            f"torch.distributions.{type(self).__name__} is not yet supported by autograd_compat"
        )


class RelaxedBernoulli(_NotYet):
    """PyTorch's RelaxedBernoulli (a sigmoid-relaxed Bernoulli): not yet supported."""


class Wishart(_NotYet):
    """PyTorch's Wishart distribution: not yet supported."""
