"""The multivariate normal with a low-rank-plus-diagonal covariance W W^T + diag(D): log
determinant and Mahalanobis distance through the small capacitance matrix I + W^T D^-1 W
(the matrix determinant lemma and the Woodbury identity)."""

from __future__ import annotations

import math

from .._ops.decomposition import linalg_cholesky
from .._ops.factories import eye
from .._ops.linalg import diag_embed, matmul
from .._ops.random import randn
from .._ops.shape import broadcast_tensors
from .._ops.solvers import solve_triangular as linalg_solve_triangular
from .._pure.shapes import Size
from . import constraints
from .distribution import Distribution
from .multivariate_normal import _batch_mv, batch_mahalanobis
from .utils import lazy_property

__all__ = ["LowRankMultivariateNormal"]


def _with_identity(k):
    """k + I over batch dims."""
    return k + eye(k.shape[-1], dtype=k.dtype)


def batch_capacitance_tril(w, d):
    """The Cholesky factor of the capacitance I + W^T D^-1 W."""
    wt_dinv = w.mT / d.unsqueeze(-2)
    return linalg_cholesky(_with_identity(matmul(wt_dinv, w)))


def batch_lowrank_logdet(w, d, capacitance_tril):
    """log|W W^T + D| = log|C| + log|D| (the matrix determinant lemma)."""
    return 2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + d.log().sum(-1)


def batch_lowrank_mahalanobis(w, d, x, capacitance_tril):
    """x^T (W W^T + D)^-1 x by the Woodbury identity."""
    wt_dinv = w.mT / d.unsqueeze(-2)
    wt_dinv_x = _batch_mv(wt_dinv, x)
    return (x.pow(2) / d).sum(-1) - batch_mahalanobis(capacitance_tril, wt_dinv_x)


def woodbury_factor(q):
    """A with (W W^T + D)^-1 = D^-1 - A^T A, for q's W, D and capacitance factor."""
    wt_dinv = q._unbroadcasted_cov_factor.mT / q._unbroadcasted_cov_diag.unsqueeze(-2)
    return linalg_solve_triangular(q._capacitance_tril, wt_dinv, upper=False)


class LowRankMultivariateNormal(Distribution):
    """A Gaussian over vectors of the last dim of `loc` with covariance
    `cov_factor @ cov_factor.T + diag(cov_diag)` (`cov_factor` of shape event x rank)."""

    arg_constraints = {
        "loc": constraints.real_vector,
        "cov_factor": constraints.independent(constraints.real, 2),
        "cov_diag": constraints.independent(constraints.positive, 1),
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args: bool | None = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ValueError(
                "cov_factor must be at least two-dimensional, "
                "with optional leading batch dimensions"
            )
        if cov_factor.shape[-2:-1] != event_shape:
            raise ValueError(
                f"cov_factor must be a batch of matrices with shape {event_shape[0]} x m"
            )
        if cov_diag.shape[-1:] != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        try:
            loc_, self.cov_factor, cov_diag_ = broadcast_tensors(
                loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1)
            )
        except RuntimeError as e:
            raise ValueError(
                f"Incompatible batch shapes: loc {loc.shape}, cov_factor {cov_factor.shape}, "
                f"cov_diag {cov_diag.shape}"
            ) from e
        self.loc = loc_[..., 0]
        self.cov_diag = cov_diag_[..., 0]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = batch_capacitance_tril(cov_factor, cov_diag)
        super().__init__(self.loc.shape[:-1], event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._expanded(
            LowRankMultivariateNormal, batch_shape, _instance, ("loc", "cov_factor", "cov_diag")
        )
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        return new

    def _matrix_shape(self) -> Size:
        return self._batch_shape + self._event_shape + self._event_shape

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        variance = self._unbroadcasted_cov_factor.pow(2).sum(-1) + self._unbroadcasted_cov_diag
        return variance.expand(self._batch_shape + self._event_shape)

    @lazy_property
    def scale_tril(self):
        # W W^T + D = D^1/2 (I + D^-1/2 W W^T D^-1/2) D^1/2, the middle factor's eigenvalues
        # at least 1: a well-conditioned Cholesky factorization
        diag_sqrt = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        dinvsqrt_w = self._unbroadcasted_cov_factor / diag_sqrt
        k = _with_identity(matmul(dinvsqrt_w, dinvsqrt_w.mT))
        return (diag_sqrt * linalg_cholesky(k)).expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        w = self._unbroadcasted_cov_factor
        covariance = matmul(w, w.mT) + diag_embed(self._unbroadcasted_cov_diag)
        return covariance.expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        a = woodbury_factor(self)
        precision = diag_embed(self._unbroadcasted_cov_diag.reciprocal()) - a.mT @ a
        return precision.expand(self._matrix_shape())

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps_w = randn(shape[:-1] + self.cov_factor.shape[-1:], dtype=self.loc.dtype)
        eps_d = randn(shape, dtype=self.loc.dtype)
        return (
            self.loc
            + _batch_mv(self._unbroadcasted_cov_factor, eps_w)
            + self._unbroadcasted_cov_diag.sqrt() * eps_d
        )

    def _log_det(self):
        return batch_lowrank_logdet(
            self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag, self._capacitance_tril
        )

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        m = batch_lowrank_mahalanobis(
            self._unbroadcasted_cov_factor,
            self._unbroadcasted_cov_diag,
            value - self.loc,
            self._capacitance_tril,
        )
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + self._log_det() + m)

    def entropy(self):
        h = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._log_det())
        return h if len(self._batch_shape) == 0 else h.expand(self._batch_shape)
