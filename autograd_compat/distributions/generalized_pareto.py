"""The generalized Pareto distribution GeneralizedPareto(loc, scale, concentration),
reparameterised by its inverse cdf of a `rand` draw (PyTorch's values under
`torch.manual_seed`); concentration 0 is the exponential case."""

from __future__ import annotations

import math

from .._ops.comparison import isclose, where
from .._ops.factories import ones_like, tensor, zeros_like
from .._ops.random import rand
from .._ops.shape import broadcast_to
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """The generalized Pareto distribution with location `loc`, scale `scale` and shape
    `concentration`; its support is [loc, loc - scale / concentration] for a negative
    concentration, [loc, inf) otherwise."""

    arg_constraints = {
        "loc": constraints.real,
        "scale": constraints.positive,
        "concentration": constraints.real,
    }
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args: bool | None = None) -> None:
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        super().__init__(self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        names = ("loc", "scale", "concentration")
        return self._expanded(GeneralizedPareto, batch_shape, _instance, names)

    def rsample(self, sample_shape=()):
        return self.icdf(rand(self._extended_shape(sample_shape), dtype=self.loc.dtype))

    def _safe_concentration(self):
        """Where the concentration is 0 (float32's isclose, as PyTorch compares it), and the
        concentration with 1 there."""
        eq_zero = isclose(self.concentration, tensor(0.0))
        return eq_zero, where(eq_zero, ones_like(self.concentration), self.concentration)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._safe_concentration()
        y = 1 / safe_conc + ones_like(z)
        where_nonzero = where(y == 0, y, y * (safe_conc * z).log1p())
        return -self.scale.log() - where(eq_zero, z, where_nonzero)

    def log_survival_function(self, value):
        """log(1 - cdf(value))."""
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._safe_concentration()
        where_nonzero = -(safe_conc * z).log1p() / safe_conc
        return where(eq_zero, -z, where_nonzero)

    def log_cdf(self, value):
        return (-self.log_survival_function(value).exp()).log1p()

    def cdf(self, value):
        return self.log_cdf(value).exp()

    def icdf(self, value):
        concentration = self.concentration
        eq_zero = isclose(concentration, zeros_like(concentration))
        safe_conc = where(eq_zero, ones_like(concentration), concentration)
        logu = (-value).log1p()
        where_nonzero = self.loc + self.scale / safe_conc * (-safe_conc * logu).expm1()
        where_zero = self.loc - self.scale * logu
        return where(eq_zero, where_zero, where_nonzero)

    def _z(self, x):
        return (x - self.loc) / self.scale

    @property
    def mean(self):
        valid = self.concentration < 1
        safe_conc = where(valid, self.concentration, 0.5)
        return where(valid, self.loc + self.scale / (1 - safe_conc), math.nan)

    @property
    def variance(self):
        valid = self.concentration < 0.5
        safe_conc = where(valid, self.concentration, 0.25)
        result = self.scale**2 / ((1 - safe_conc) ** 2 * (1 - 2 * safe_conc))
        return where(valid, result, math.nan)

    def entropy(self):
        return broadcast_to(self.scale.log() + self.concentration + 1, self._batch_shape)

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        lower = self.loc
        upper = where(self.concentration < 0, lower - self.scale / self.concentration, math.inf)
        return constraints.interval(lower, upper)
