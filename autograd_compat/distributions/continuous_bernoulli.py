"""The continuous Bernoulli distribution on [0, 1], parameterised by `probs` or `logits`,
reparameterised by its inverse cdf of a `rand` draw (PyTorch's values under
`torch.manual_seed`). Near probs = 0.5, between `lims`, the normaliser, mean, variance, cdf and
icdf are Taylor expansions, as their closed forms divide 0 by 0 there."""

from __future__ import annotations

import math

from .._ops.comparison import maximum, where
from .._ops.factories import ones_like, zeros_like
from .._ops.nn.loss import binary_cross_entropy_with_logits
from .._ops.random import rand
from .._pure.shapes import Size
from .._state.modes import no_grad
from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all, clamp_probs, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """The continuous Bernoulli distribution (Loaiza-Ganem and Cunningham, 2019): density
    proportional to probs^x (1 - probs)^(1 - x) on [0, 1]; give exactly one of `probs` (in
    (0, 1), clamped away from 0 and 1) or `logits`."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(
        self, probs=None, logits=None, lims=(0.499, 0.501), validate_args: bool | None = None
    ) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            # checked before the clamp (which would make any value pass), when asked for
            if validate_args is not None:
                if not bool(self.arg_constraints["probs"].check(self.probs).all()):
                    raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
            self._param = self.probs
        else:
            (self.logits,) = broadcast_all(logits)
            self._param = self.logits
        self._lims = lims
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(ContinuousBernoulli, batch_shape, _instance, ("probs", "logits"))
        new._param = new.__dict__["probs" if "probs" in self.__dict__ else "logits"]
        new._lims = self._lims
        return new

    def _outside_unstable_region(self):
        return maximum(self.probs.le(self._lims[0]), self.probs.gt(self._lims[1]))

    def _cut_probs(self):
        return where(
            self._outside_unstable_region(), self.probs, self._lims[0] * ones_like(self.probs)
        )

    def _cont_bern_log_norm(self):
        """The log normalising constant as a function of `probs`."""
        cut_probs = self._cut_probs()
        below_half = where(cut_probs.le(0.5), cut_probs, zeros_like(cut_probs))
        above_half = where(cut_probs.ge(0.5), cut_probs, ones_like(cut_probs))
        log_norm = ((-cut_probs).log1p() - cut_probs.log()).abs().log() - where(
            cut_probs.le(0.5), (-2.0 * below_half).log1p(), (2.0 * above_half - 1.0).log()
        )
        x = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        cut_probs = self._cut_probs()
        mus = cut_probs / (2.0 * cut_probs - 1.0) + 1.0 / ((-cut_probs).log1p() - cut_probs.log())
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        return self.variance.sqrt()

    @property
    def variance(self):
        cut_probs = self._cut_probs()
        variances = cut_probs * (cut_probs - 1.0) / (1.0 - 2.0 * cut_probs).pow(2) + 1.0 / (
            (-cut_probs).log1p() - cut_probs.log()
        ).pow(2)
        x = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return where(self._outside_unstable_region(), variances, taylor)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    def sample(self, sample_shape=()):
        u = rand(self._extended_shape(sample_shape), dtype=self.probs.dtype)
        with no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=()):
        return self.icdf(rand(self._extended_shape(sample_shape), dtype=self.probs.dtype))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        bce = binary_cross_entropy_with_logits(logits, value, reduction="none")
        return -bce + self._cont_bern_log_norm()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut_probs = self._cut_probs()
        cdfs = (cut_probs.pow(value) * (1.0 - cut_probs).pow(1.0 - value) + cut_probs - 1.0) / (
            2.0 * cut_probs - 1.0
        )
        unbounded = where(self._outside_unstable_region(), cdfs, value)
        return where(
            value.le(0.0),
            zeros_like(value),
            where(value.ge(1.0), ones_like(value), unbounded),
        )

    def icdf(self, value):
        cut_probs = self._cut_probs()
        inverse = (
            (-cut_probs + value * (2.0 * cut_probs - 1.0)).log1p() - (-cut_probs).log1p()
        ) / (cut_probs.log() - (-cut_probs).log1p())
        return where(self._outside_unstable_region(), inverse, value)

    def entropy(self):
        log_probs0 = (-self.probs).log1p()
        log_probs1 = self.probs.log()
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self) -> tuple:
        return (self.logits,)

    def _log_normalizer(self, x):
        """The log normalising constant as a function of the natural parameter."""
        outside = maximum(x.le(self._lims[0] - 0.5), x.gt(self._lims[1] - 0.5))
        cut = where(outside, x, (self._lims[0] - 0.5) * ones_like(x))
        log_norm = cut.expm1().abs().log() - cut.abs().log()
        taylor = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return where(outside, log_norm, taylor)
