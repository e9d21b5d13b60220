"""The multivariate normal distribution, parameterised by its mean and one of a covariance
matrix, a precision matrix or a lower-triangular scale (Cholesky factor) L; reparameterised:
loc + L eps."""

from __future__ import annotations

import math
from typing import NamedTuple

from .._ops.decomposition import linalg_cholesky
from .._ops.factories import eye
from .._ops.linalg import matmul
from .._ops.random import randn
from .._ops.shape import broadcast_shapes
from .._ops.solvers import solve_triangular as linalg_solve_triangular
from .._state.tensor import Tensor
from . import constraints
from .distribution import Distribution
from .utils import lazy_property

__all__ = ["MultivariateNormal"]


def _batch_mv(matrix, vector):
    """matrix @ vector over broadcast batch dims."""
    return matmul(matrix, vector.unsqueeze(-1)).squeeze(-1)


def batch_mahalanobis(scale_tril, x):
    """|L^-1 x|^2 for a lower-triangular L, over broadcast batch dims."""
    solved = linalg_solve_triangular(scale_tril, x.unsqueeze(-1), upper=False)
    return solved.squeeze(-1).pow(2).sum(-1)


def _inverse_tril(scale_tril):
    """L^-1 for a lower-triangular L."""
    identity = eye(scale_tril.shape[-1], dtype=scale_tril.dtype)
    return linalg_solve_triangular(scale_tril, identity, upper=False)


class GivenMatrix(NamedTuple):
    """The one matrix parameter given to a distribution: its name and value."""

    name: str
    value: Tensor


def one_matrix(covariance_matrix, precision_matrix, scale_tril, error: type) -> GivenMatrix:
    """The one of the three matrices that is given; `error` (the type the distribution raises)
    with PyTorch's text unless exactly one is."""
    given = [
        GivenMatrix(name, m)
        for name, m in (
            ("scale_tril", scale_tril),
            ("covariance_matrix", covariance_matrix),
            ("precision_matrix", precision_matrix),
        )
        if m is not None
    ]
    if len(given) != 1:
        raise error(
            "Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified."
        )
    return given[0]


def scale_tril_of(matrix: GivenMatrix):
    """The lower Cholesky factor of the covariance that `matrix` describes."""
    if matrix.name == "scale_tril":
        return matrix.value
    if matrix.name == "covariance_matrix":
        return linalg_cholesky(matrix.value)
    return _precision_to_scale_tril(matrix.value)


def _precision_to_scale_tril(precision):
    """The lower-triangular L with L L^T = P^-1, from the Cholesky factor of P flipped."""
    flipped = linalg_cholesky(precision.flip((-2, -1)))
    return _inverse_tril(flipped.flip((-2, -1)).transpose(-2, -1))


class MultivariateNormal(Distribution):
    """A Gaussian over vectors of the last dim of `loc`; give exactly one of
    `covariance_matrix`, `precision_matrix` or `scale_tril`."""

    arg_constraints = {
        "loc": constraints.real_vector,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(
        self,
        loc,
        covariance_matrix=None,
        precision_matrix=None,
        scale_tril=None,
        validate_args: bool | None = None,
    ) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        name, matrix = one_matrix(covariance_matrix, precision_matrix, scale_tril, ValueError)
        if matrix.dim() < 2:
            raise ValueError(
                f"{name} matrix must be at least two-dimensional, with optional leading batch "
                "dimensions"
                if name == "scale_tril"
                else f"{name} must be at least two-dimensional, with optional leading batch "
                "dimensions"
            )
        batch_shape = tuple(broadcast_shapes(matrix.shape[:-2], loc.shape[:-1]))
        setattr(self, name, matrix.expand((*batch_shape, -1, -1)))
        self.loc = loc.expand((*batch_shape, -1))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        self._unbroadcasted_scale_tril = scale_tril_of(GivenMatrix(name, matrix))

    def expand(self, batch_shape, _instance=None):
        names = ("loc", "covariance_matrix", "scale_tril", "precision_matrix")
        new = self._expanded(MultivariateNormal, batch_shape, _instance, names)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        return new

    def _matrix_shape(self) -> tuple:
        return (*self._batch_shape, *self._event_shape, *self._event_shape)

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        tril = self._unbroadcasted_scale_tril
        return matmul(tril, tril.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        inverse = _inverse_tril(self._unbroadcasted_scale_tril)
        return matmul(inverse.mT, inverse).expand(self._matrix_shape())

    @property
    def mean(self):
        return self.loc

    mode = mean  # the density peaks at its mean

    @property
    def variance(self):
        variance = self._unbroadcasted_scale_tril.pow(2).sum(-1)
        return variance.expand((*self._batch_shape, *self._event_shape))

    def rsample(self, sample_shape=()):
        eps = randn(self._extended_shape(sample_shape), dtype=self.loc.dtype)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def _half_log_det(self):
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        m = batch_mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        n = self._event_shape[0]
        return -0.5 * (n * math.log(2 * math.pi) + m) - self._half_log_det()

    def entropy(self):
        n = self._event_shape[0]
        h = 0.5 * n * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return h if len(self._batch_shape) == 0 else h.expand(self._batch_shape)
