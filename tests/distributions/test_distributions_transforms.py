"""torch.distributions.transforms, biject_to/transform_to, TransformedDistribution,
Independent and the distributions built on them (LogNormal, HalfNormal, HalfCauchy, Gumbel,
Weibull, Pareto, Kumaraswamy, LogisticNormal, InverseGamma) against real PyTorch: values and float64
gradients of each transform's forward, inverse and log-Jacobian, of the distributions'
log_prob/entropy/mean/variance and of their KL divergences; shapes, supports, caching,
seeded samples and the errors."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat as ac
from tests._helpers.torch_compare import check_case, check_error

P = np.array([0.5, -1.0, 2.0])  # real parameters
S = np.array([1.5, 0.3, 0.8])  # positive parameters
S2 = np.array([0.7, 2.0, 1.2])
V = np.array([0.1, -0.7, 2.5])  # values
U = np.array([0.2, 0.9, 0.55])  # values in (0, 1)
M = np.array([[0.3, -0.2, 0.1], [0.5, 1.1, -0.4], [-0.6, 0.2, 0.7]])  # a square matrix


def _round_trip(t, x):
    """A transform's forward, inverse of its result and log-Jacobian."""
    return lambda transform: (
        y := transform(x),
        transform.inv(y),
        transform.log_abs_det_jacobian(x, y),
    )


def _pair(transform, x):
    """A transform's forward and the inverse of its result (no log-Jacobian: not bijective)."""
    return (y := transform(x)), transform.inv(y)


def _elementwise(t, x, s):
    """The univariate transforms at `x` (PowerTransform at the positive `s`)."""
    T = t.distributions.transforms
    run = _round_trip(t, x)
    return (
        run(T.ExpTransform()),
        run(T.SigmoidTransform()),
        run(T.TanhTransform()),
        run(T.SoftplusTransform()),
        run(T.AffineTransform(s, -s)),
        run(T.AffineTransform(0.5, 2.0)),
        _pair(T.AbsTransform(), x),
        _round_trip(t, s)(T.PowerTransform(x)),
        run(T.ExpTransform().inv),
        run(T.IndependentTransform(T.SigmoidTransform(), 1)),
        run(T.ComposeTransform([T.TanhTransform(), T.AffineTransform(1.0, s)])),
    )


def _structured(t, x, m):
    """The transforms that couple coordinates: vectors to the simplex and to correlation
    Cholesky factors, matrices, reshapes, cat and stack."""
    T = t.distributions.transforms
    run = _round_trip(t, x)
    return (
        run(T.StickBreakingTransform()),
        run(T.CorrCholeskyTransform()),
        run(T.ReshapeTransform((3,), (3, 1))),
        run(T.AffineTransform(x.flip(0), 2.0, event_dim=1)),
        run(T.CatTransform([T.ExpTransform(), T.TanhTransform()], 0, [1, 2])),
        run(T.StackTransform([T.ExpTransform(), T.identity_transform, T.SigmoidTransform()])),
        _pair(T.SoftmaxTransform(), x),
        _pair(T.LowerCholeskyTransform(), m),
        _pair(T.PositiveDefiniteTransform(), m),
        run(T.CumulativeDistributionTransform(t.distributions.Normal(0.5, x.exp()))),
    )


def _constraints(t):
    """Constraints with a transform in both registries."""
    C = t.distributions.constraints
    return [
        C.real,
        C.positive,
        C.greater_than(-1.5),
        C.less_than(2.0),
        C.unit_interval,
        C.interval(-2.0, 3.0),
        C.half_open_interval(1.0, 4.0),
        C.independent(C.positive, 1),
        C.stack([C.positive, C.real, C.unit_interval]),
        C.cat([C.positive, C.interval(0.0, 2.0)], 0, [2, 1]),
    ]


def _registry(t, x):
    """biject_to and transform_to of several constraints, applied to `x`."""
    C = t.distributions.constraints
    results = []
    for constraint in _constraints(t):  # transform_to gives the same transforms for these
        transform = t.distributions.biject_to(constraint)
        y = transform(x)
        results.append((y, transform.log_abs_det_jacobian(x, y)))
    simplex = t.distributions.transform_to(C.simplex)(x)
    stick = t.distributions.biject_to(C.simplex)(x)
    corr = t.distributions.biject_to(C.corr_cholesky)(x)
    return results, simplex, stick, corr


def _sac(t, loc, log_std):
    """SAC's squashed Gaussian: Normal through tanh and an affine rescale, sampled with
    rsample (seeded) and scored by log_prob, as its policies do."""
    D = t.distributions
    T = t.distributions.transforms
    base = D.Normal(loc, log_std.exp())
    squashed = D.TransformedDistribution(
        base, [T.TanhTransform(cache_size=1), T.AffineTransform(0.5, 2.0)]
    )
    t.manual_seed(0)
    action = squashed.rsample((2,))
    plain = D.TransformedDistribution(base, [T.TanhTransform(), T.AffineTransform(0.5, 2.0)])
    return (
        action,
        squashed.log_prob(action),
        plain.log_prob(t.tensor([0.1, -1.2, 2.3], dtype=t.float64)),
        plain.cdf(t.tensor([0.1, -1.2, 2.3], dtype=t.float64)),
        plain.icdf(t.tensor(U)),
    )


def _independent(t, loc, scale):
    D = t.distributions
    d = D.Independent(D.Normal(loc, scale), 1)
    q = D.Independent(D.Normal(loc.flip(0), scale + 1), 1)
    return d.log_prob(t.tensor(np.stack([V, U]))), d.entropy(), d.mean, D.kl_divergence(d, q)


def _summary(d, value):
    """What a distribution computes: log_prob of `value`, entropy, mean and variance."""
    return d.log_prob(value), d.entropy(), d.mean, d.variance


# name -> (function of (lib, *parameters), parameters)
CASES = {
    "transforms_elementwise": (_elementwise, [V, S]),
    "transforms_structured": (_structured, [V, M]),
    "biject_to_transform_to": (_registry, [V]),
    "sac_tanh_normal": (_sac, [P, S - 1]),
    "independent_normal": (_independent, [P, S]),
    "log_normal": (
        lambda t, loc, scale: (
            *_summary(d := t.distributions.LogNormal(loc, scale), t.tensor(S2)),
            d.mode,
        ),
        [P, S],
    ),
    "half_normal": (
        lambda t, scale: (
            *_summary(d := t.distributions.HalfNormal(scale), t.tensor(S2)),
            d.cdf(t.tensor(S2)),
            d.icdf(t.tensor(U)),
        ),
        [S],
    ),
    "half_cauchy": (
        lambda t, scale: (
            d := t.distributions.HalfCauchy(scale),
            d.log_prob(t.tensor(S2)),
            d.entropy(),
            d.mean,
            d.cdf(t.tensor(S2)),
            d.icdf(t.tensor(U)),
        )[1:],
        [S],
    ),
    "weibull": (
        lambda t, scale, k: (
            *_summary(d := t.distributions.Weibull(scale, k), t.tensor(S2)),
            d.mode,
        ),
        [S, S2 + 0.5],
    ),
    "pareto": (
        lambda t, scale, alpha: (
            *_summary(d := t.distributions.Pareto(scale, alpha), t.tensor(S + 0.5)),
            d.cdf(t.tensor(S + 0.5)),
        ),
        [S, S2 + 2.0],
    ),
    "gumbel": (
        lambda t, loc, scale: (
            *_summary(d := t.distributions.Gumbel(loc, scale), t.tensor(V)),
            d.cdf(t.tensor(V)),
            d.icdf(t.tensor(U)),
            d.stddev,
        ),
        [P, S],
    ),
    "kumaraswamy": (
        lambda t, a, b: (
            *_summary(d := t.distributions.Kumaraswamy(a, b), t.tensor(U)),
            d.mode,
            d.cdf(t.tensor(U)),
        ),
        [S + 0.5, S2 + 0.5],
    ),
    "logistic_normal": (
        lambda t, loc, scale: t.distributions.LogisticNormal(loc, scale).log_prob(
            t.tensor([[0.2, 0.3, 0.1, 0.4], [0.25, 0.25, 0.4, 0.1]])
        ),
        [P, S],
    ),
    "inverse_gamma": (
        lambda t, c, r: (
            *_summary(d := t.distributions.InverseGamma(c, r), t.tensor(S2)),
            d.mode,
        ),
        [S + 2.0, S2],
    ),
    "kl": (
        lambda t, a, b: tuple(
            t.distributions.kl_divergence(p, q)
            for p, q in (
                (t.distributions.LogNormal(a, b), t.distributions.LogNormal(b, a.exp())),
                (t.distributions.HalfNormal(b), t.distributions.HalfNormal(a.exp())),
                (t.distributions.Gumbel(a, b), t.distributions.Gumbel(b, a.exp())),
                (t.distributions.Gumbel(a, b), t.distributions.Normal(b, a.exp())),
                (t.distributions.Normal(a, b), t.distributions.Gumbel(b, a.exp())),
                (t.distributions.Gamma(b, a.exp()), t.distributions.Gumbel(a, b)),
                (t.distributions.Uniform(a, a + b), t.distributions.Gumbel(b, a.exp())),
                (t.distributions.Gumbel(a, b), t.distributions.Uniform(a, a + b)),
            )
        ),
        [P, S],
    ),
    "kl_pareto_exponential": (
        lambda t, a, b: tuple(
            t.distributions.kl_divergence(p, q)
            for p, q in (
                (t.distributions.Pareto(b, a + 3.5), t.distributions.Pareto(b - 0.1, a.exp())),
                (t.distributions.Pareto(b, a + 3.5), t.distributions.Exponential(a.exp())),
                (t.distributions.Pareto(b, a + 3.5), t.distributions.Gamma(b, a.exp())),
                (t.distributions.Pareto(b, a + 3.5), t.distributions.Normal(a, b)),
                (t.distributions.Uniform(b, b + 1), t.distributions.Pareto(b - 0.1, a.exp())),
                (t.distributions.Exponential(b), t.distributions.Gumbel(a, a.exp())),
            )
        ),
        [P, S],
    ),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_pytorch(name, real_torch):
    """Values and float64 gradients in the inputs, vs PyTorch and finite differences."""
    fn, params = CASES[name]
    check_case(fn, params, real_torch, names=False)


def _distributions(t):
    """One instance of each (float64 parameters, as the cases above: their compilations
    are shared)."""
    D = t.distributions
    p, s = t.tensor(P), t.tensor(S)
    return {
        "log_normal": D.LogNormal(p, s),
        "half_normal": D.HalfNormal(s),
        "half_cauchy": D.HalfCauchy(s),
        "weibull": D.Weibull(s, s + 1),
        "pareto": D.Pareto(s, s + 1),
        "gumbel": D.Gumbel(p, s),
        "gumbel_numbers": D.Gumbel(0.5, 2.0),
        "kumaraswamy": D.Kumaraswamy(s, s + 1),
        "logistic_normal": D.LogisticNormal(p, s),
        "inverse_gamma": D.InverseGamma(s + 1, s),
        "independent": D.Independent(D.Normal(p, s), 1),
        "transformed": D.TransformedDistribution(
            D.Normal(p, s),
            [D.transforms.ExpTransform(), D.transforms.ReshapeTransform((3,), (1, 3))],
        ),
    }


def test_shapes_supports_samples_and_expand(real_torch):
    ours, theirs = _distributions(ac), _distributions(real_torch)
    for name, d in ours.items():
        e = theirs[name]
        assert (d.batch_shape, d.event_shape) == (e.batch_shape, e.event_shape), name
        assert d.has_rsample == e.has_rsample and repr(d.support) == repr(e.support), name
        ac.manual_seed(3)
        real_torch.manual_seed(3)
        sample, expected = d.sample((4,)), e.sample((4,))
        assert sample.shape == expected.shape and str(sample.dtype) == str(expected.dtype), name
        assert bool(d.support.check(sample).all()) and not sample.requires_grad, name
        if name != "inverse_gamma":  # PyTorch's gamma sampler is native
            np.testing.assert_allclose(sample.numpy(), expected.numpy(), rtol=1e-5, err_msg=name)
        a, b = d.expand((2, *d.batch_shape)), e.expand((2, *e.batch_shape))
        assert (a.batch_shape, a.event_shape) == (b.batch_shape, b.event_shape), name
        assert type(a) is type(d), name
        np.testing.assert_allclose(
            a.log_prob(ac.tensor(expected[:1].numpy())).detach().numpy(),
            b.log_prob(expected[:1]).numpy(),
            rtol=1e-4,
            err_msg=name,
        )


def test_transform_attributes_and_caching(real_torch):
    """Domains, codomains, signs, event dims, shapes, equality and the cache, as PyTorch's."""
    for t in (ac, real_torch):
        T = t.distributions.transforms
        assert T.__all__ == real_torch.distributions.transforms.__all__
        assert T.ExpTransform() == T.ExpTransform() and T.ExpTransform() != T.SigmoidTransform()
        assert T.ExpTransform().inv.inv.__class__ is T.ExpTransform
        assert T.ExpTransform().inv == T.ExpTransform().inv
        assert T.AffineTransform(1.0, 2.0) == T.AffineTransform(1.0, 2.0)
        assert T.AffineTransform(1.0, -2.0).sign == -1
        assert T.ComposeTransform([T.ExpTransform(), T.AffineTransform(0.0, -1.0)]).sign == -1
        assert T.StickBreakingTransform().forward_shape((5, 3)) == (5, 4)
        assert T.CorrCholeskyTransform().forward_shape((3,)) == (3, 3)
        assert T.CorrCholeskyTransform().inverse_shape((4, 4)) == (6,)
        assert T.ReshapeTransform((2, 3), (6,)).inverse_shape((4, 6)) == (4, 2, 3)
        compose = T.ComposeTransform([T.ExpTransform(), T.StickBreakingTransform()])
        assert compose.domain.event_dim == 1 and compose.codomain.event_dim == 1
        assert repr(compose.codomain) == "Simplex()"
        assert repr(T.IndependentTransform(T.ExpTransform(), 2).codomain) == (
            "IndependentConstraint(GreaterThan(lower_bound=0.0), 2)"
        )
        assert T.identity_transform.bijective and T.AbsTransform().bijective is False
        assert T.TanhTransform().with_cache(0) is not None
        cached = T.TanhTransform(cache_size=1)
        x = t.tensor([30.0])
        y = cached(x)
        assert cached.inv(y) is x and cached(x) is y  # atanh(1.0) would be inf
        assert T.TanhTransform().inv(y).isinf().all()
        assert T.ExpTransform().with_cache(1)._cache_size == 1
    for ours, theirs in zip(_constraints(ac), _constraints(real_torch)):
        for name in ("biject_to", "transform_to"):
            mine = getattr(ac.distributions, name)(ours)
            expected = getattr(real_torch.distributions, name)(theirs)
            assert repr(mine) == repr(expected), (name, theirs)
            assert repr(mine.codomain) == repr(expected.codomain), (name, theirs)


ERRORS = {
    "cache_size": lambda t: t.distributions.transforms.ExpTransform(cache_size=2),
    "reshape_numel": lambda t: t.distributions.transforms.ReshapeTransform((2, 3), (5,)),
    "reshape_shape": lambda t: t.distributions.transforms.ReshapeTransform(
        (2, 3), (6,)
    ).forward_shape((3, 2)),
    "event_dim": lambda t: t.distributions.transforms.CorrCholeskyTransform().event_dim,
    "corr_shape": lambda t: t.distributions.transforms.CorrCholeskyTransform().forward_shape((4,)),
    "stack_length": lambda t: t.distributions.transforms.StackTransform(
        [t.distributions.transforms.ExpTransform()]
    )(t.ones(3)),
    "cat_dim": lambda t: t.distributions.transforms.CatTransform(
        [t.distributions.transforms.ExpTransform()], dim=2
    )(t.ones(3)),
    "transforms_type": lambda t: t.distributions.TransformedDistribution(
        t.distributions.Normal(0.0, 1.0), "exp"
    ),
    "transforms_list": lambda t: t.distributions.TransformedDistribution(
        t.distributions.Normal(0.0, 1.0), [1]
    ),
    "base_too_small": lambda t: t.distributions.TransformedDistribution(
        t.distributions.Normal(0.0, 1.0), [t.distributions.transforms.StickBreakingTransform()]
    ),
    "independent_ndims": lambda t: t.distributions.Independent(
        t.distributions.Normal(t.zeros(2), t.ones(2)), 2
    ),
    "biject_to_missing": lambda t: t.distributions.biject_to(t.distributions.constraints.boolean),
    "registry_type": lambda t: t.distributions.biject_to.register(int, lambda c: None),
    "log_normal_scale": lambda t: t.distributions.LogNormal(0.0, t.tensor([-1.0])),
    "log_normal_value": lambda t: t.distributions.LogNormal(0.0, 1.0).log_prob(t.tensor([-1.0])),
    "half_normal_scale": lambda t: t.distributions.HalfNormal(t.tensor([0.0])),
    "half_cauchy_value": lambda t: t.distributions.HalfCauchy(1.0).log_prob(t.tensor([-1.0])),
    "weibull_concentration": lambda t: t.distributions.Weibull(1.0, t.tensor([0.0])),
    "pareto_value": lambda t: t.distributions.Pareto(2.0, 1.0).log_prob(t.tensor([1.0])),
    "gumbel_scale": lambda t: t.distributions.Gumbel(t.tensor([0.0]), t.tensor([-1.0])),
    "kumaraswamy_value": lambda t: t.distributions.Kumaraswamy(1.0, 2.0).log_prob(t.tensor([1.5])),
    "logistic_normal_value": lambda t: t.distributions.LogisticNormal(
        t.zeros(2), t.ones(2)
    ).log_prob(t.tensor([0.5, 0.2, 0.2])),
    "inverse_gamma_rate": lambda t: t.distributions.InverseGamma(1.0, t.tensor([-1.0])),
    "kl_transforms_differ": lambda t: t.distributions.kl_divergence(
        t.distributions.LogNormal(0.0, 1.0), t.distributions.HalfNormal(1.0)
    ),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name, real_torch):
    check_error(ERRORS[name], real_torch)
