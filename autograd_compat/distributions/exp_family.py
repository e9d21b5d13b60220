"""`ExponentialFamily`, the base of the distributions with density
exp(<t(x), theta> - F(theta) + k(x)): the entropy and the KL divergence between two members
of one family follow from the log normalizer F by Bregman divergences."""

from __future__ import annotations

from .._tape.backward import grad
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """A distribution of an exponential family, given by its natural parameters theta
    (`_natural_params`), its log normalizer F (`_log_normalizer`) and the expected carrier
    measure E[k(x)] (`_mean_carrier_measure`)."""

    @property
    def _natural_params(self) -> tuple:
        """The natural parameters theta, a tuple of tensors."""
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        """The log normalizer F(theta)."""
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self) -> float:
        """E[k(x)], the expected carrier measure."""
        raise NotImplementedError

    def entropy(self):
        """F(theta) - <theta, grad F(theta)> - E[k(x)], grad F by autograd (so, as in
        PyTorch, not under no_grad)."""
        result = -self._mean_carrier_measure
        params = [p.detach().requires_grad_() for p in self._natural_params]
        log_normalizer = self._log_normalizer(*params)
        gradients = grad(log_normalizer.sum(), params, create_graph=True)
        result += log_normalizer
        for param, g in zip(params, gradients):
            result -= (param * g).reshape(self._batch_shape + (-1,)).sum(-1)
        return result
