"""The Dirichlet distribution over the simplex of the last dim, reparameterised (normalised
gamma samples with implicit reparameterisation gradients)."""

from __future__ import annotations

from .._ops.comparison import where
from .._ops.elementwise import xlogy
from .._ops.nn.embedding import one_hot
from .._ops.random import sample_dirichlet
from . import constraints
from .exp_family import ExponentialFamily

__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution with the positive `concentration` vectors of the last dim."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args: bool | None = None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(
            concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args
        )

    def expand(self, batch_shape, _instance=None):
        return self._expanded(Dirichlet, batch_shape, _instance, ("concentration",))

    def rsample(self, sample_shape=()):
        return sample_dirichlet(self.concentration.expand(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return xlogy(c - 1.0, value).sum(-1) + c.sum(-1).lgamma() - c.lgamma().sum(-1)

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        """The density's peak, (concentration - 1)+ normalised; where every concentration is
        below 1, the vertex PyTorch picks (a one-hot of that row's argmax)."""
        shifted = (self.concentration - 1).clamp(min=0.0)
        mode = shifted / shifted.sum(-1, True)
        corner = one_hot(mode.argmax(dim=-1), shifted.shape[-1]).to(mode)
        return where((self.concentration < 1).all(dim=-1, keepdim=True), corner, mode)

    @property
    def variance(self):
        total = self.concentration.sum(-1, True)
        return self.concentration * (total - self.concentration) / (total.pow(2) * (total + 1))

    def entropy(self):
        c = self.concentration
        k = c.size(-1)
        total = c.sum(-1)
        return (
            c.lgamma().sum(-1)
            - total.lgamma()
            - (k - total) * total.digamma()
            - ((c - 1.0) * c.digamma()).sum(-1)
        )

    @property
    def _natural_params(self) -> tuple:
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - x.sum(-1).lgamma()
