"""The categorical distribution over 0..K-1, parameterised by `probs` or `logits` (both
normalised along the last dim)."""

from __future__ import annotations

import math

from .._ops.factories import arange, full
from .._ops.sampling import multinomial
from .._ops.shape import broadcast_tensors
from .._pure import dtypes as _dtypes
from .._pure.shapes import Size
from . import constraints
from .distribution import Distribution
from .utils import lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical"]


class Categorical(Distribution):
    """Category indices drawn with the (normalised) weights along the last dim of `probs`,
    or of softmax(`logits`); give exactly one."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
            self._param = self.probs
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
            self._param = self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.dim() > 1 else Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(Categorical, batch_shape, _instance, ("probs", "logits"))
        new._param = new.__dict__["probs" if "probs" in self.__dict__ else "logits"]
        new._num_events = self._num_events
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    @property
    def mean(self):
        return full(self._extended_shape(), math.nan, dtype=self.probs.dtype)

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        return full(self._extended_shape(), math.nan, dtype=self.probs.dtype)

    def sample(self, sample_shape=()):
        sample_shape = Size(sample_shape)
        probs_2d = self.probs.detach().reshape(-1, self._num_events)
        samples_2d = multinomial(probs_2d, sample_shape.numel(), True).T
        return samples_2d.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = broadcast_tensors(value, self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self):
        logits = self.logits.clamp(min=_dtypes.finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True):
        values = arange(self._num_events).view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1, *self._batch_shape)) if expand else values
