"""The relaxed (concrete) Bernoulli distributions: `LogitRelaxedBernoulli` over the reals and
`RelaxedBernoulli`, its sigmoid, over (0, 1); both reparameterised (Maddison et al., 2017)."""

from __future__ import annotations

from .._ops.random import rand
from . import constraints
from .bernoulli import BinaryParameters, set_probs_or_logits
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
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


class RelaxedBernoulli(TransformedDistribution):
    """A relaxed Bernoulli over (0, 1) at relaxation `temperature`, parameterised by `probs`
    or `logits` (give exactly one): the sigmoid of a LogitRelaxedBernoulli sample.

    Example:
        >>> m = torch.distributions.RelaxedBernoulli(torch.tensor(0.5), logits=torch.zeros(3))
        >>> m.rsample((2,)).shape
        torch.Size([2, 3])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(
        self, temperature, probs=None, logits=None, validate_args: bool | None = None
    ) -> None:
        base_dist = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base_dist, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs
