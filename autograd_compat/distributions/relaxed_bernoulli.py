"""The relaxed (concrete) Bernoulli distributions: `LogitRelaxedBernoulli` over the reals and
`RelaxedBernoulli`, its sigmoid, over (0, 1); both reparameterised (Maddison et al., 2017)."""

from __future__ import annotations

from .._ops.nn.activation import sigmoid, softplus
from .._ops.random import rand
from .._pure import dtypes as _dtypes
from . import constraints
from ._transformed import Transformed
from .bernoulli import BinaryParameters, set_probs_or_logits
from .distribution import Distribution
from .utils import broadcast_all, clamp_probs

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(BinaryParameters, Distribution):
    """The logit of a RelaxedBernoulli sample, at relaxation `temperature`, parameterised by
    `probs` or `logits` (give exactly one)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(
        self, temperature, probs=None, logits=None, validate_args: bool | None = None
    ) -> None:
        self.temperature = temperature
        batch_shape = set_probs_or_logits(self, probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(LogitRelaxedBernoulli, batch_shape, _instance, ("probs", "logits"))
        new.temperature = self.temperature
        new._param = new.__dict__["probs" if "probs" in self.__dict__ else "logits"]
        return new

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        uniforms = clamp_probs(rand(shape, dtype=probs.dtype))
        logistic = uniforms.log() - (-uniforms).log1p()
        return (logistic + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value.mul(self.temperature)
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(Transformed):
    """A relaxed Bernoulli over (0, 1) at relaxation `temperature`, parameterised by `probs`
    or `logits` (give exactly one): the sigmoid of a LogitRelaxedBernoulli sample.

    Example:
        >>> m = torch.distributions.RelaxedBernoulli(torch.tensor(0.5), logits=torch.zeros(3))
        >>> m.rsample((2,)).shape
        torch.Size([2, 3])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval

    def __init__(
        self, temperature, probs=None, logits=None, validate_args: bool | None = None
    ) -> None:
        base = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base, validate_args=validate_args)

    def _forward(self, x):
        finfo = _dtypes.finfo(x.dtype)
        return sigmoid(x).clamp(min=finfo.tiny, max=1.0 - finfo.eps)

    def _inverse(self, y):
        finfo = _dtypes.finfo(y.dtype)
        y = y.clamp(min=finfo.tiny, max=1.0 - finfo.eps)
        return y.log() - (-y).log1p()

    def _log_abs_det_jacobian(self, x, y):
        return -softplus(-x) - softplus(x)
