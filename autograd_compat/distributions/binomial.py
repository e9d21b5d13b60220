"""The binomial distribution: successes in `total_count` Bernoulli trials of probability
`probs` (or sigmoid(`logits`))."""

from __future__ import annotations

from .._ops.count_samples import sample_binomial
from .._ops.factories import arange
from .._state.modes import no_grad
from .._state.tensor import Tensor
from . import constraints
from .bernoulli import BinaryParameters
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Binomial"]


def _clamp_by_zero(x):
    """clamp(x, min=0) with gradient 0.5 at 0, as PyTorch's."""
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


def trials_and_param(dist: Distribution, total_count, probs, logits) -> None:
    """Store `total_count` and exactly one of `probs` or `logits` (PyTorch's ValueError
    otherwise) broadcast together, the count in the parameter's dtype, the parameter also as
    `_param`."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    name, given = ("probs", probs) if probs is not None else ("logits", logits)
    count, param = broadcast_all(total_count, given)
    dist.total_count = count.type_as(param)  # type: ignore[attr-defined]
    setattr(dist, name, param)
    dist._param = param  # type: ignore[attr-defined]


class Binomial(BinaryParameters, Distribution):
    """Counts of successes in `total_count` trials (a number or a tensor broadcastable with
    the parameter), each succeeding with `probs` (or sigmoid(`logits`)); give exactly one."""

    arg_constraints = {
        "total_count": constraints.nonnegative_integer,
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    has_enumerate_support = True
    total_count: Tensor

    def __init__(
        self, total_count=1, probs=None, logits=None, validate_args: bool | None = None
    ) -> None:
        trials_and_param(self, total_count, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(Binomial, batch_shape, _instance, ("total_count", "probs", "logits"))
        new._param = new.__dict__["probs" if "probs" in self.__dict__ else "logits"]
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return sample_binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        n, logits = self.total_count, self.logits
        log_factorial_n = (n + 1).lgamma()
        log_factorial_k = (value + 1).lgamma()
        log_factorial_nmk = (n - value + 1).lgamma()
        # k log(p) + (n - k) log(1 - p) = k logit - n max(logit, 0) - n log1p(e^-|logit|)
        normalize_term = (
            n * _clamp_by_zero(logits) + n * (-logits.abs()).exp().log1p() - log_factorial_n
        )
        return value * logits - log_factorial_k - log_factorial_nmk - normalize_term

    def _homogeneous_count(self, what: str) -> int:
        """The one total_count of every batch element (NotImplementedError otherwise)."""
        total_count = int(self.total_count.max())
        if not self.total_count.min() == total_count:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return total_count

    def entropy(self):
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(log_prob.exp() * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True):
        total_count = self._homogeneous_count("enumerate_support")
        values = arange(1 + total_count, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1, *self._batch_shape)) if expand else values
