"""torch.distributions: probability distributions with PyTorch's parameters, shapes,
validation messages and reparameterised (`rsample`) gradients, built on this library's
tensor ops and random generator (`torch.manual_seed` makes draws repeatable; samplers built
on rand/randn/bernoulli draw PyTorch's values, the gamma-based ones other values).

Normal, Uniform, Bernoulli, Categorical, MultivariateNormal, Beta, Gamma, Chi2, Dirichlet,
Wishart and the relaxed RelaxedBernoulli and RelaxedOneHotCategorical; the discrete Binomial,
Poisson, Geometric, NegativeBinomial, Multinomial, OneHotCategorical (and its
straight-through form), with MixtureSameFamily, LowRankMultivariateNormal and LKJCholesky
(Poisson and binomial counts are drawn correctly distributed, not PyTorch's values);
`kl_divergence` with `register_kl` and the closed forms PyTorch has between two of the same
family; `constraints` for validation.
"""

from __future__ import annotations

from .._alias import missing_attribute as _missing_attribute
from . import constraints
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .chi2 import Chi2
from .dirichlet import Dirichlet
from .distribution import Distribution
from .gamma import Gamma
from .geometric import Geometric
from .kl import kl_divergence, register_kl
from .lkj_cholesky import LKJCholesky
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .negative_binomial import NegativeBinomial
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .poisson import Poisson
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .uniform import Uniform
from .wishart import Wishart

__all__ = [
    "Bernoulli",
    "Beta",
    "Binomial",
    "Categorical",
    "Chi2",
    "Dirichlet",
    "Distribution",
    "Gamma",
    "Geometric",
    "LKJCholesky",
    "LowRankMultivariateNormal",
    "MixtureSameFamily",
    "Multinomial",
    "MultivariateNormal",
    "NegativeBinomial",
    "Normal",
    "OneHotCategorical",
    "OneHotCategoricalStraightThrough",
    "Poisson",
    "RelaxedBernoulli",
    "RelaxedOneHotCategorical",
    "Uniform",
    "Wishart",
    "constraints",
    "kl_divergence",
    "register_kl",
]


def __getattr__(name: str):
    """`torch.distributions.X` that this package lacks: an AttributeError saying so."""

    _missing_attribute(__name__, name)
