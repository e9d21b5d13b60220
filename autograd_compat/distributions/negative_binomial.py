"""The negative binomial distribution: successes before `total_count` failures of
Bernoulli trials with success probability `probs` (or sigmoid(`logits`)); sampled as a
Poisson of a Gamma, as in PyTorch."""

from __future__ import annotations

from .._ops.count_samples import sample_poisson
from .._ops.nn.activation import logsigmoid
from .._state.modes import no_grad
from . import constraints
from .bernoulli import BinaryParameters
from .binomial import trials_and_param
from .distribution import Distribution
from .gamma import Gamma
from .utils import lazy_property

__all__ = ["NegativeBinomial"]


class NegativeBinomial(BinaryParameters, Distribution):
    """Counts of successes before `total_count` (a non-negative real) failures; give exactly
    one of `probs` (in [0, 1)) or `logits`."""

    arg_constraints = {
        "total_count": constraints.greater_than_eq(0),
        "probs": constraints.half_open_interval(0.0, 1.0),
        "logits": constraints.real,
    }
    support = constraints.nonnegative_integer

    def __init__(
        self, total_count, probs=None, logits=None, validate_args: bool | None = None
    ) -> None:
        trials_and_param(self, total_count, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        names = ("total_count", "probs", "logits")
        new = self._expanded(NegativeBinomial, batch_shape, _instance, names)
        new._param = new.__dict__["probs" if "probs" in self.__dict__ else "logits"]
        return new

    @property
    def mean(self):
        return self.total_count * self.logits.exp()

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / (-self.logits).sigmoid()

    @lazy_property
    def _gamma(self):
        # unvalidated: total_count may be 0
        return Gamma(self.total_count, (-self.logits).exp(), validate_args=False)

    def sample(self, sample_shape=()):
        with no_grad():
            return sample_poisson(self._gamma.sample(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        n = self.total_count
        log_unnormalized_prob = n * logsigmoid(-self.logits) + value * logsigmoid(self.logits)
        log_normalization = -(n + value).lgamma() + (1.0 + value).lgamma() + n.lgamma()
        # total_count == value == 0 has probability 1, where lgamma(0) is infinite
        log_normalization = log_normalization.masked_fill(n + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization
