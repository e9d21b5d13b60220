"""torch.special: the special functions under their SciPy-style names (expit, gammaln...), and
softmax/log_softmax/logsumexp with torch.special's signatures. Every function is the
library's op of the same math, so node names and gradients are the same as torch's."""

from __future__ import annotations

from ._alias import missing_attribute as _missing_attribute
from ._ops.elementwise import xlogy
from ._ops.out_arg import takes_out
from ._ops.reduce import logsumexp
from ._ops.special_bessel import *  # noqa: F403
from ._ops.special_bessel import __all__ as _bessel
from ._ops.special_math import i0, polygamma
from ._ops.special_math import igamma as gammainc
from ._ops.special_math import igammac as gammaincc
from ._ops.special_math import mvlgamma as _mvlgamma
from ._ops.special_math import special_entr as entr
from ._ops.special_math import special_erfcx as erfcx
from ._ops.special_math import special_i0e as i0e
from ._ops.special_math import special_i1 as i1
from ._ops.special_math import special_i1e as i1e
from ._ops.special_math import special_log_ndtr as log_ndtr
from ._ops.special_math import special_ndtr as ndtr
from ._ops.special_math import special_ndtri as ndtri
from ._ops.special_math import special_xlog1py as xlog1py
from ._ops.special_math import special_zeta as zeta
from ._ops.special_polynomials import *  # noqa: F403
from ._ops.special_polynomials import __all__ as _polynomials
from ._ops.unary import digamma, erf, erfc, erfinv, exp2, expm1, log1p, logit, sinc
from ._ops.unary import lgamma as gammaln
from ._ops.unary import sigmoid as expit
from .nn import functional as _F

__all__ = [
    "entr",
    "erfcx",
    "i0e",
    "i1",
    "i1e",
    "log_ndtr",
    "ndtr",
    "ndtri",
    "xlog1py",
    "zeta",
    "digamma",
    "erf",
    "erfc",
    "erfinv",
    "exp2",
    "expit",
    "expm1",
    "gammainc",
    "gammaincc",
    "gammaln",
    "i0",
    "log1p",
    "log_softmax",
    "logit",
    "logsumexp",
    "multigammaln",
    "polygamma",
    "psi",
    "sinc",
    "softmax",
    "xlogy",
    *_bessel,
    *_polynomials,
]

psi = digamma


@takes_out
def multigammaln(input, p: int):
    """The multivariate log-gamma function of dimension `p` (`torch.mvlgamma`)."""
    return _mvlgamma(input, p)


def softmax(input, dim, *, dtype=None):
    """exp(x) / sum(exp(x)) along `dim` (`dtype`: cast the input first)."""
    if dim is None:
        raise TypeError("special_softmax(): argument 'dim' (position 2) must be int, not NoneType")
    return _F.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    """log(softmax(x)) along `dim`, computed stably (`dtype`: cast the input first)."""
    if dim is None:
        raise TypeError(
            "special_log_softmax(): argument 'dim' (position 2) must be int, not NoneType"
        )
    return _F.log_softmax(input, dim, dtype=dtype)


def __getattr__(name: str):
    """`torch.special.X` that this module lacks: an AttributeError saying it is not supported."""
    _missing_attribute(__name__, name)
