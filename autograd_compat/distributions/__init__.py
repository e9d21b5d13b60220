"""torch.distributions: probability distributions with PyTorch's parameters, shapes,
validation messages and reparameterised (`rsample`) gradients, built on this library's
tensor ops and random generator (`torch.manual_seed` makes draws repeatable; samplers built
on rand/randn/bernoulli draw PyTorch's values, the gamma-based ones other values).

Normal, Uniform, Bernoulli, Categorical, MultivariateNormal, Beta, Gamma, Chi2, Dirichlet,
Wishart and the relaxed RelaxedBernoulli and RelaxedOneHotCategorical; the continuous
Exponential, Laplace, Cauchy, StudentT, FisherSnedecor, VonMises, ContinuousBernoulli and
GeneralizedPareto; the ExponentialFamily base (entropy and KL as Bregman divergences);
`TransformedDistribution` (a base distribution through a chain of `transforms`) and the
distributions built on it: LogNormal, HalfNormal, HalfCauchy, Gumbel, Weibull, Pareto,
Kumaraswamy, LogisticNormal and InverseGamma; `Independent` (batch dims read as event dims);
the discrete Binomial, Poisson, Geometric, NegativeBinomial, Multinomial, OneHotCategorical
(and its straight-through form), with MixtureSameFamily, LowRankMultivariateNormal and
LKJCholesky (Poisson and binomial counts are drawn correctly distributed, not PyTorch's
values); `kl_divergence` with `register_kl` and the closed forms PyTorch has between two of
the same family and across families; `constraints` for validation and
`biject_to`/`transform_to` from a constraint to a transform onto it.
"""

from __future__ import annotations

from .._alias import missing_attribute as _missing_attribute
from . import constraints, transforms
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .constraint_registry import biject_to, transform_to
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .fishersnedecor import FisherSnedecor
from .gamma import Gamma
from .generalized_pareto import GeneralizedPareto
from .geometric import Geometric
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .independent import Independent
from .inverse_gamma import InverseGamma
from .kl import kl_divergence, register_kl
from .kumaraswamy import Kumaraswamy
from .laplace import Laplace
from .lkj_cholesky import LKJCholesky
from .log_normal import LogNormal
from .logistic_normal import LogisticNormal
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .negative_binomial import NegativeBinomial
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .pareto import Pareto
from .poisson import Poisson
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .studentT import StudentT
from .transformed_distribution import TransformedDistribution
from .transforms import *  # noqa: F403 - PyTorch's package exports every transform
from .uniform import Uniform
from .von_mises import VonMises
from .weibull import Weibull
from .wishart import Wishart

__all__ = [
    "Bernoulli",
    "Beta",
    "Binomial",
    "Categorical",
    "Cauchy",
    "Chi2",
    "ContinuousBernoulli",
    "Dirichlet",
    "Distribution",
    "Exponential",
    "ExponentialFamily",
    "FisherSnedecor",
    "Gamma",
    "GeneralizedPareto",
    "Geometric",
    "Gumbel",
    "HalfCauchy",
    "HalfNormal",
    "Independent",
    "InverseGamma",
    "Kumaraswamy",
    "Laplace",
    "LKJCholesky",
    "LogisticNormal",
    "LogNormal",
    "LowRankMultivariateNormal",
    "MixtureSameFamily",
    "Multinomial",
    "MultivariateNormal",
    "NegativeBinomial",
    "Normal",
    "OneHotCategorical",
    "OneHotCategoricalStraightThrough",
    "Pareto",
    "Poisson",
    "RelaxedBernoulli",
    "RelaxedOneHotCategorical",
    "StudentT",
    "TransformedDistribution",
    "Uniform",
    "VonMises",
    "Weibull",
    "Wishart",
    "biject_to",
    "constraints",
    "kl_divergence",
    "register_kl",
    "transform_to",
    "transforms",
]
__all__.extend(transforms.__all__)


def __getattr__(name: str):
    """`torch.distributions.X` that this package lacks: an AttributeError saying so."""

    _missing_attribute(__name__, name)
