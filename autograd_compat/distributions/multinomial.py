"""The multinomial distribution: counts per category of `total_count` categorical draws."""

from __future__ import annotations

import math

from .._ops.factories import ones_like, tensor, zeros
from .._pure.shapes import Size
from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """Count vectors over the categories of the last dim of `probs` (or `logits`, both
    normalised there) from `total_count` draws. `log_prob` takes any counts; `sample` and
    `entropy` use `total_count`."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(
        self, total_count: int = 1, probs=None, logits=None, validate_args: bool | None = None
    ) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(Multinomial, batch_shape, _instance, ())
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        sample_shape = Size(sample_shape)
        samples = self._categorical.sample(Size((self.total_count,)) + sample_shape)
        # (total_count, sample, batch) -> (sample, batch, total_count)
        samples = samples.permute(*range(1, samples.dim()), 0)
        counts = zeros(self._extended_shape(sample_shape), dtype=samples.dtype)
        counts.scatter_add_(-1, samples, ones_like(samples))
        return counts.type_as(self.probs)

    def entropy(self):
        n = tensor(self.total_count)
        # lgamma(n + 1) of PyTorch's int64 tensor: in the default dtype, correctly rounded
        log_factorial_n = tensor(math.lgamma(self.total_count + 1))
        term1 = n * self._categorical.entropy() - log_factorial_n
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = self._binomial.log_prob(support).exp()
        weights = (support + 1).lgamma()
        term2 = (binomial_probs * weights).sum([0, -1])
        return term1 + term2

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_factorial_n = (value.sum(-1) + 1).lgamma()
        log_factorial_xs = (value + 1).lgamma().sum(-1)
        logits = logits.masked_fill((value == 0) & (logits == -math.inf), 0)
        log_powers = (logits * value).sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers
