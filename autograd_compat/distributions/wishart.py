"""The Wishart distribution over symmetric positive-definite matrices, parameterised by a
covariance, precision or lower-Cholesky scale matrix and `df`; reparameterised samples by
the Bartlett decomposition (chi-squared diagonal, normal lower triangle)."""

from __future__ import annotations

import math
import numbers
import warnings

from .._ops.decomposition import cholesky_solve, linalg_slogdet
from .._ops.factories import arange, eye, tensor, tril_indices
from .._ops.linalg import diag_embed, einsum
from .._ops.random import randn
from .._ops.shape import broadcast_shapes
from .._ops.special_math import mvlgamma
from .._pure import dtypes as _dtypes
from .._pure.shapes import Size
from . import constraints
from .chi2 import Chi2
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .multivariate_normal import one_matrix, scale_tril_of
from .utils import lazy_property

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _mvdigamma(x, p: int):
    """The multivariate digamma function of dimension `p`."""
    if not x.gt((p - 1) / 2).all():
        raise AssertionError("Wrong domain for multivariate digamma function.")
    halves = arange(p, dtype=x.dtype).div(2).expand(tuple(x.shape) + (-1,))
    return (x.unsqueeze(-1) - halves).digamma().sum(-1)


class Wishart(ExponentialFamily):
    """The Wishart distribution with `df` degrees of freedom (above the dimension minus 1)
    and exactly one of `covariance_matrix`, `precision_matrix` or `scale_tril`.

    Example:
        >>> m = torch.distributions.Wishart(torch.tensor(3.0), covariance_matrix=torch.eye(2))
        >>> m.rsample((4,)).shape
        torch.Size([4, 2, 2])
    """

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {
            "covariance_matrix": constraints.positive_definite,
            "precision_matrix": constraints.positive_definite,
            "scale_tril": constraints.lower_cholesky,
            "df": constraints.greater_than(self.event_shape[-1] - 1),
        }

    def __init__(
        self,
        df,
        covariance_matrix=None,
        precision_matrix=None,
        scale_tril=None,
        validate_args: bool | None = None,
    ) -> None:
        given = one_matrix(covariance_matrix, precision_matrix, scale_tril, AssertionError)
        param = given.value
        if param.dim() < 2:
            raise ValueError(
                "scale_tril must be at least two-dimensional, with optional leading batch "
                "dimensions"
            )
        if isinstance(df, numbers.Number):
            batch_shape = Size(param.shape[:-2])
            self.df = tensor(df, dtype=param.dtype)
        else:
            batch_shape = Size(broadcast_shapes(param.shape[:-2], df.shape))
            self.df = df.expand(batch_shape)
        event_shape = param.shape[-2:]
        if self.df.le(event_shape[-1] - 1).any():
            raise ValueError(
                f"Value of df={df} expected to be greater than ndim - 1 = {event_shape[-1] - 1}."
            )
        setattr(self, given.name, param.expand(batch_shape + (-1, -1)))
        if self.df.lt(event_shape[-1]).any():
            warnings.warn(
                "Low df values detected. Singular samples are highly likely to occur for "
                "ndim - 1 < df < ndim.",
                stacklevel=2,
            )
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._batch_dims = [-(x + 1) for x in range(len(self._batch_shape))]
        self._unbroadcasted_scale_tril = scale_tril_of(given)
        self._dist_chi2 = self._chi2(batch_shape)

    def _chi2(self, batch_shape: Size) -> Chi2:
        """The chi-squared laws of the Bartlett factor's diagonal: df - i for row i."""
        rows = arange(self._event_shape[-1], dtype=self._unbroadcasted_scale_tril.dtype)
        return Chi2(self.df.unsqueeze(-1) - rows.expand(batch_shape + (-1,)))

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = Size(batch_shape)
        cov_shape = batch_shape + self.event_shape
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(batch_shape)
        new._batch_dims = [-(x + 1) for x in range(len(batch_shape))]
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(cov_shape))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._dist_chi2 = new._chi2(batch_shape)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._batch_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self):
        tril = self._unbroadcasted_scale_tril
        return (tril @ tril.transpose(-2, -1)).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def precision_matrix(self):
        tril = self._unbroadcasted_scale_tril
        identity = eye(self._event_shape[-1], dtype=tril.dtype)
        return cholesky_solve(identity, tril).expand(self._batch_shape + self._event_shape)

    @property
    def mean(self):
        return self.df.view(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor[factor <= 0] = math.nan
        return factor.view(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        v = self.covariance_matrix
        diagonal = v.diagonal(dim1=-2, dim2=-1)
        return self.df.view(self._batch_shape + (1, 1)) * (
            v.pow(2) + einsum("...i,...j->...ij", diagonal, diagonal)
        )

    def _bartlett_sampling(self, sample_shape=()):
        """L A A^T L^T for one Bartlett factor A per sample: sqrt(chi2) on the diagonal,
        standard normals below it."""
        p = self._event_shape[-1]
        chi = self._dist_chi2.rsample(sample_shape).sqrt()
        noise = diag_embed(chi.clamp(min=_dtypes.finfo(chi.dtype).eps), dim1=-2, dim2=-1)
        i, j = tril_indices(p, p, offset=-1)
        shape = Size(sample_shape) + self._batch_shape + (p * (p - 1) // 2,)
        noise[..., i, j] = randn(shape, dtype=noise.dtype)
        chol = self._unbroadcasted_scale_tril @ noise
        return chol @ chol.transpose(-2, -1)

    def _singular(self, sample):
        """Per sample (over the batch dims too): whether a matrix is not positive definite."""
        singular = ~self.support.check(sample)
        return singular.amax(self._batch_dims) if self._batch_shape else singular

    def rsample(self, sample_shape=(), max_try_correction=None):
        """A reparameterised sample; a singular one (possible for df below the dimension) is
        drawn again up to `max_try_correction` (10) times, with a warning."""
        if max_try_correction is None:
            max_try_correction = 10
        sample = self._bartlett_sampling(Size(sample_shape))
        singular = self._singular(sample)
        if singular.any():
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                redrawn = self._bartlett_sampling(singular[singular].shape)
                sample[singular] = redrawn
                singular[singular.clone()] = self._singular(redrawn)
                if not singular.any():
                    break
        return sample

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        tril = self._unbroadcasted_scale_tril
        return (
            -nu * (p * _LOG_2 / 2 + tril.diagonal(dim1=-2, dim2=-1).log().sum(-1))
            - mvlgamma(nu / 2, p=p)
            + (nu - p - 1) / 2 * linalg_slogdet(value).logabsdet
            - cholesky_solve(value, tril).diagonal(dim1=-2, dim2=-1).sum(dim=-1) / 2
        )

    def entropy(self):
        nu = self.df
        p = self._event_shape[-1]
        tril = self._unbroadcasted_scale_tril
        return (
            (p + 1) * (p * _LOG_2 / 2 + tril.diagonal(dim1=-2, dim2=-1).log().sum(-1))
            + mvlgamma(nu / 2, p=p)
            - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p=p)
            + nu * p / 2
        )

    @property
    def _natural_params(self) -> tuple:
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (self.df - p - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        logabsdet = linalg_slogdet(-2 * x).logabsdet
        return (y + (p + 1) / 2) * (-logabsdet + _LOG_2 * p) + mvlgamma(y + (p + 1) / 2, p=p)
