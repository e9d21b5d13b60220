"""`Transformed`: the distribution of f(X), X drawn from a base distribution and f an
elementwise bijection: PyTorch's TransformedDistribution with one transform, which the
relaxed distributions are."""

from __future__ import annotations

from .._pure.shapes import Size
from .._state.modes import no_grad
from .distribution import Distribution

__all__ = ["Transformed"]


class Transformed(Distribution):
    """f(X) for X from `base_dist`; a subclass gives f (`_forward`), its inverse and
    log|df/dx| (`_log_abs_det_jacobian`), each elementwise."""

    has_rsample = True

    def __init__(self, base_dist: Distribution, validate_args: bool | None = None) -> None:
        self.base_dist = base_dist
        super().__init__(base_dist.batch_shape, base_dist.event_shape, validate_args=validate_args)

    def _forward(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def _log_abs_det_jacobian(self, x, y):
        raise NotImplementedError

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(type(self), _instance)
        batch_shape = Size(batch_shape)
        new.base_dist = self.base_dist.expand(batch_shape)
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=()):
        with no_grad():
            return self._forward(self.base_dist.sample(sample_shape))

    def rsample(self, sample_shape=()):
        return self._forward(self.base_dist.rsample(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        x = self._inverse(value)
        jacobian = self._log_abs_det_jacobian(x, value)
        event_dims = len(self._event_shape)
        if event_dims:
            jacobian = jacobian.reshape(tuple(jacobian.shape[:-event_dims]) + (-1,)).sum(-1)
        return -jacobian + self.base_dist.log_prob(x)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs
