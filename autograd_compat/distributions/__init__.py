"""torch.distributions: probability distributions with PyTorch's parameters, shapes,
validation messages and reparameterised (`rsample`) gradients, built on this library's
tensor ops and random generator (`torch.manual_seed` makes draws repeatable; samplers built
on rand/randn/bernoulli draw PyTorch's values, the gamma-based ones other values).

Normal, Uniform, Bernoulli, Categorical, MultivariateNormal, Beta, Gamma, Chi2, Dirichlet,
Wishart and the relaxed RelaxedBernoulli and RelaxedOneHotCategorical; the continuous
Exponential, Laplace, Cauchy, StudentT, FisherSnedecor, VonMises, ContinuousBernoulli and
GeneralizedPareto; the ExponentialFamily base (entropy and KL as Bregman divergences);
`kl_divergence` with `register_kl` and the closed forms PyTorch has between two of the same
family and across families; `constraints` for validation.
"""

from __future__ import annotations

from .._alias import missing_attribute as _missing_attribute
from . import constraints
from .bernoulli import Bernoulli
from .beta import Beta
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .fishersnedecor import FisherSnedecor
from .gamma import Gamma
from .generalized_pareto import GeneralizedPareto
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .studentT import StudentT
from .uniform import Uniform
from .von_mises import VonMises
from .wishart import Wishart

__all__ = [
    "Bernoulli",
    "Beta",
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
    "Laplace",
    "MultivariateNormal",
    "Normal",
    "RelaxedBernoulli",
    "RelaxedOneHotCategorical",
    "StudentT",
    "Uniform",
    "VonMises",
    "Wishart",
    "constraints",
    "kl_divergence",
    "register_kl",
]


def __getattr__(name: str):
    """`torch.distributions.X` that this package lacks: an AttributeError saying so."""

    _missing_attribute(__name__, name)
