"""The Bernoulli distribution, parameterised by `probs` or by `logits` (log-odds)."""

from __future__ import annotations

import numbers

from .._ops.comparison import where
from .._ops.factories import arange
from .._ops.nn.loss import binary_cross_entropy_with_logits
from .._ops.random import bernoulli
from .._ops.unary import logit
from .._pure.shapes import Size
from .._state.modes import no_grad
from .._state.tensor import Tensor
from . import constraints
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Bernoulli", "BinaryParameters", "set_probs_or_logits"]


def set_probs_or_logits(dist: Distribution, probs, logits) -> Size:
    """Store exactly one of `probs` or `logits` (PyTorch's ValueError otherwise) on a binary
    distribution, as a tensor (also as `_param`); returns the batch shape it gives."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    given = probs if probs is not None else logits
    (param,) = broadcast_all(given)
    if probs is not None:
        dist.probs = param  # type: ignore[attr-defined]
    else:
        dist.logits = param  # type: ignore[attr-defined]
    dist._param = param  # type: ignore[attr-defined]
    return Size() if isinstance(given, numbers.Number) else param.size()


class BinaryParameters:
    """`probs` and `logits` of a distribution given one of them (`set_probs_or_logits`): the
    other is computed when first read."""

    _param: Tensor

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self._param.size()


class Bernoulli(BinaryParameters, ExponentialFamily):
    """0/1 samples, 1 with probability `probs` (or sigmoid(`logits`)); give exactly one."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args: bool | None = None) -> None:
        batch_shape = set_probs_or_logits(self, probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(Bernoulli, batch_shape, _instance, ("probs", "logits"))
        new._param = new.__dict__["probs" if "probs" in self.__dict__ else "logits"]
        return new

    @property
    def mean(self):
        return self.probs

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    @property
    def mode(self):
        """1 where `probs` > 0.5, 0 below, NaN at 0.5 (two modes)."""
        mode = (self.probs >= 0.5).to(self.probs)
        return where(self.probs == 0.5, float("nan"), mode)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand: bool = True):
        values = arange(2, dtype=self._param.dtype).view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1, *self._batch_shape)) if expand else values

    @property
    def _natural_params(self) -> tuple:
        return (logit(self.probs),)

    def _log_normalizer(self, x):
        return x.exp().log1p()
