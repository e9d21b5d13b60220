"""The LKJ distribution over lower Cholesky factors of correlation matrices, sampled by the
onion method (Lewandowski, Kurowicka and Joe, 2009) as in PyTorch."""

from __future__ import annotations

import math

from .._ops.factories import arange
from .._ops.linalg import diag_embed
from .._ops.random import randn
from .._ops.shape import cat
from .._ops.special_math import mvlgamma
from .._pure import dtypes as _dtypes
from .._pure.shapes import Size
from .._state.modes import no_grad
from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """Lower Cholesky factors L of `dim` x `dim` correlation matrices M = L L^T, with density
    proportional to det(M)^(concentration - 1): uniform over correlation matrices at
    concentration 1."""

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim: int, concentration=1.0, validate_args: bool | None = None) -> None:
        if dim < 2:
            raise ValueError(
                f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}."
            )
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        # the Beta of the onion method's squared row norms, one per row (Sec. 3.2)
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = arange(self.dim - 1, dtype=self.concentration.dtype)
        offset = cat([offset.new_zeros((1,)), offset])
        self._beta = Beta(offset + 0.5, marginal_conc.unsqueeze(-1) - 0.5 * offset)
        super().__init__(self.concentration.size(), Size((dim, dim)), validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(LKJCholesky, batch_shape, _instance, ("concentration",))
        new.dim = self.dim
        new._beta = self._beta.expand(Size(batch_shape) + (self.dim,))
        return new

    def sample(self, sample_shape=()):
        with no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            u_normal = randn(self._extended_shape(sample_shape), dtype=y.dtype).tril(-1)
            u_hypersphere = u_normal / u_normal.norm(dim=-1, keepdim=True)
            u_hypersphere[..., 0, :].fill_(0.0)  # the first row: 0 / 0
            w = y.sqrt() * u_hypersphere
            eps = _dtypes.finfo(w.dtype).tiny
            diag_elems = (1 - w.pow(2).sum(-1)).clamp(min=eps).sqrt()
            return w + diag_embed(diag_elems)

    def log_prob(self, value):
        # density of M: prod(L_ii^(2 (concentration - 1))); the Jacobian of L -> M:
        # prod(L_ii^(D - i))
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = arange(2, self.dim + 1)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = (order * diag_elems.log()).sum(-1)
        # the normalization constant (page 1999 of the reference)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = alpha.lgamma() * dm1
        numerator = mvlgamma(alpha - 0.5, dm1)
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        return unnormalized_log_pdf - (pi_constant + numerator - denominator)
