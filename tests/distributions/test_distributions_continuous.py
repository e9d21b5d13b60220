"""torch.distributions' continuous families against real PyTorch: Exponential, Laplace,
Cauchy, StudentT, FisherSnedecor, VonMises, ContinuousBernoulli, GeneralizedPareto and the
ExponentialFamily base (Bregman entropy and KL): log_prob, entropy, moments, cdf/icdf and their
float64 gradients, KL divergences, sample shapes and supports, seeded draws, loose sample
moments and the validation errors."""

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
PROBS = np.array([0.2, 0.4995, 0.8])  # the middle one inside ContinuousBernoulli's lims
CONCENTRATION = np.array([0.3, 0.1, -0.4])  # GeneralizedPareto: heavy tails, or bounded


def _summary(d, value, u=None):
    """log_prob of `value`, mean, variance and entropy; cdf of `value` and icdf of `u` when
    given."""
    out = [d.log_prob(value), d.mean, d.variance, d.entropy()]
    if u is not None:
        out += [d.cdf(value), d.icdf(u)]
    return out


# name -> (function of (lib, *parameters), parameters)
SUMMARIES = {
    "exponential": (
        lambda t, r: _summary(t.distributions.Exponential(r), t.tensor(S2), t.tensor(U)),
        [S],
    ),
    "laplace": (
        lambda t, loc, s: _summary(t.distributions.Laplace(loc, s), t.tensor(V), t.tensor(U)),
        [P, S],
    ),
    "cauchy": (
        lambda t, loc, s: _summary(t.distributions.Cauchy(loc, s), t.tensor(V), t.tensor(U)),
        [P, S],
    ),
    "student_t": (  # df > 2: finite moments; df's gradient through lgamma and digamma
        lambda t, df, loc, s: _summary(t.distributions.StudentT(df + 2, loc, s), t.tensor(V)),
        [S, P, S2],
    ),
    "fisher_snedecor": (
        lambda t, a, b: (
            (d := t.distributions.FisherSnedecor(a * 3 + 2, b + 4)).log_prob(t.tensor(S2)),
            d.mean,
            d.variance,
            d.mode,
        ),
        [S, S2],
    ),
    "von_mises": (
        lambda t, loc, c: (
            (d := t.distributions.VonMises(loc, c * 3)).log_prob(t.tensor(V)),
            d.mean,
            d.variance,
        ),
        [P, S],  # concentrations both sides of the Bessel approximations' switch at 3.75
    ),
    "continuous_bernoulli": (  # given probs, and given logits
        lambda t, p, x: (
            _summary(t.distributions.ContinuousBernoulli(probs=p), t.tensor(U), t.tensor(U)),
            _summary(t.distributions.ContinuousBernoulli(logits=x), t.tensor(U), t.tensor(U)),
        ),
        [PROBS, P],
    ),
    "generalized_pareto": (  # log_prob and cdf: float32 only in PyTorch (see below)
        lambda t, loc, s, c: (
            (d := t.distributions.GeneralizedPareto(loc, s, c)).icdf(t.tensor(U)),
            d.mean,
            d.variance,
            d.entropy(),
        ),
        [P, S, CONCENTRATION],
    ),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(SUMMARIES))
def test_summaries_against_pytorch(name, real_torch):
    """Values and float64 gradients in the parameters, vs PyTorch and finite differences."""
    fn, params = SUMMARIES[name]
    check_case(fn, params, real_torch, names=False)


def _undefined_moments(t, df, loc, scale):
    """StudentT's NaN mean (df <= 1) and infinite or NaN variance (df <= 2); FisherSnedecor's
    NaN mean, mode and variance for small df; GeneralizedPareto's NaN moments for a large
    concentration, its exponential case (concentration 0), its support's upper bound and its
    log_prob and cdf in float32 (PyTorch compares the concentration with a float32 zero,
    which float64 parameters fail)."""
    D = t.distributions
    student = D.StudentT(df * 2, loc, scale)  # df 3.0, 0.6, 1.6
    fisher = D.FisherSnedecor(df, df * 4)
    pareto = D.GeneralizedPareto(loc.float(), scale.float(), t.tensor([0.0, 0.7, -0.4]))
    value = loc.float() + t.tensor(U, dtype=t.float32)
    return (
        student.mean,
        student.variance,
        student.log_prob(t.tensor(V)),
        student.entropy(),
        fisher.mean,
        fisher.mode,
        fisher.variance,
        pareto.mean,
        pareto.variance,
        pareto.log_prob(value),
        pareto.cdf(value),
        pareto.log_survival_function(value),
        pareto.icdf(t.tensor(U, dtype=t.float32)),
        pareto.support.upper_bound,
    )


@pytest.mark.torch
def test_undefined_moments_and_float32_paths_against_pytorch(real_torch):
    # float32 inside: gradients to float32's rounding
    check_case(
        _undefined_moments,
        [S, P, S2],
        real_torch,
        names=False,
        finite_differences=False,
        grad_rtol=1e-5,
    )


# ----------------------------------------------------------------------------- KL
def _same_family(t, a, b):
    D = t.distributions
    kl = D.kl_divergence
    return (
        kl(D.Exponential(a), D.Exponential(b)),
        kl(D.Laplace(a, b), D.Laplace(b, a * 2)),
        kl(D.Cauchy(a, b), D.Cauchy(-b, a)),
        kl(
            D.ContinuousBernoulli(probs=a / (a + b)),
            D.ContinuousBernoulli(logits=a - b),
        ),
    )


def _across_families(t, a, b):
    """The finite closed forms between these families and Normal, Gamma, Beta, Uniform."""
    D = t.distributions
    kl = D.kl_divergence
    cb = D.ContinuousBernoulli(probs=a / (a + b))
    uniform = D.Uniform(0.3 * b / (a + b), 0.3 * b / (a + b) + 0.5)  # inside (0, 1)
    return (
        kl(D.Exponential(a), D.Gamma(b, a)),
        kl(D.Exponential(a), D.Normal(b, a)),
        kl(D.Gamma(a, b), D.Exponential(a)),
        kl(D.Beta(a, b), D.Exponential(b)),
        kl(D.Uniform(a, a + b), D.Exponential(b)),
        kl(D.Laplace(a, b), D.Normal(b, a)),
        kl(D.Normal(a, b), D.Laplace(b, a)),
        kl(cb, D.Exponential(a)),
        kl(cb, D.Normal(a, b)),
        kl(cb, D.Uniform(-a, 1 + b)),
        kl(D.Beta(a, b), cb),
        kl(uniform, cb),
    )


def _infinite(t, a, b):
    """The pairs whose KL is infinite: p's support reaches outside q's."""
    D = t.distributions
    kl = D.kl_divergence
    cb = D.ContinuousBernoulli(probs=a / (a + b))
    return (
        kl(D.Exponential(a), D.Beta(a, b)),
        kl(D.Exponential(a), cb),
        kl(D.Exponential(a), D.Uniform(a, a + b)),
        kl(D.Gamma(a, b), cb),
        kl(D.Normal(a, b), cb),
        kl(D.Normal(a, b), D.Exponential(a)),
        kl(D.Laplace(a, b), D.Beta(a, b)),
        kl(D.Laplace(a, b), cb),
        kl(D.Laplace(a, b), D.Exponential(a)),
        kl(D.Laplace(a, b), D.Gamma(a, b)),
        kl(D.Laplace(a, b), D.Uniform(a, a + b)),
        kl(D.Uniform(-a, b), D.Exponential(a)),
        kl(cb, D.Uniform(a, a + b)),
        kl(D.Uniform(-a, b), cb),
    )


def _bregman(t, a, b):
    """ExponentialFamily's entropy and KL by autograd of the log normalizer, for the families
    whose own formulas override them, and the pair with no closed form (Wishart)."""
    D = t.distributions
    E = D.ExponentialFamily
    bregman = t.distributions.kl._kl_expfamily_expfamily
    pairs = [
        (D.Normal(a, b), D.Normal(b, a)),
        (D.Gamma(a, b), D.Gamma(b, a)),
        (D.Exponential(a), D.Exponential(b)),
        (D.Bernoulli(a / (a + b)), D.Bernoulli(logits=a - b)),
        (D.ContinuousBernoulli(a / (a + b)), D.ContinuousBernoulli(logits=b - a)),
        (D.Beta(a, b), D.Beta(b, a)),
        (D.Dirichlet(t.stack([a, b], -1)), D.Dirichlet(t.stack([b, a], -1))),
    ]
    wishart = D.Wishart(a + 2, t.eye(2, dtype=a.dtype) * 2)
    return (
        [E.entropy(p) for p, _ in pairs[:5]],
        [bregman(p, q) for p, q in pairs],
        D.kl_divergence(wishart, D.Wishart(b + 3, t.eye(2, dtype=a.dtype) * 3)),
    )


@pytest.mark.torch
def test_kl_against_pytorch(real_torch):
    check_case(_same_family, [S, S2], real_torch, names=False)
    check_case(_across_families, [S, S2], real_torch, names=False)
    check_case(_infinite, [S, S2], real_torch, names=False, grads=False)


@pytest.mark.torch
def test_exponential_family_bregman_against_pytorch(real_torch):
    """Values only: the Bregman results are differentiable in the detached natural parameters
    (create_graph), not in the distribution's own."""
    check_case(_bregman, [S, S2], real_torch, names=False, grads=False)


# ----------------------------------------------------------------------------- sampling
def _distributions(t):
    """One instance of each family, float32 parameters, batch shape (3,)."""
    D = t.distributions
    f = t.float32
    p, s, s2 = t.tensor(P, dtype=f), t.tensor(S, dtype=f), t.tensor(S2, dtype=f)
    return {
        "exponential": D.Exponential(s),
        "laplace": D.Laplace(p, s),
        "cauchy": D.Cauchy(p, s),
        "student_t": D.StudentT(s2 + 4, p, s),
        "fisher_snedecor": D.FisherSnedecor(s * 10, s2 + 10),
        "von_mises": D.VonMises(p, s * 3),
        "continuous_bernoulli": D.ContinuousBernoulli(probs=t.tensor(PROBS, dtype=f)),
        "generalized_pareto": D.GeneralizedPareto(p, s, t.tensor([0.1, 0.0, -0.4], dtype=f)),
    }


def _check_moments(name, d, draws):
    """Mean and variance of the draws near the distribution's (loosely), where finite; the
    circular mean and variance for VonMises, the median for Cauchy."""
    draws = draws.double().numpy()
    if name == "von_mises":
        resultant = np.exp(1j * draws).mean(0)
        np.testing.assert_allclose(np.angle(resultant), P, atol=0.1)
        np.testing.assert_allclose(1 - np.abs(resultant), d.variance.double().numpy(), atol=0.03)
    elif name == "cauchy":
        np.testing.assert_allclose(np.median(draws, 0), P, atol=0.05)
    else:
        mean, variance = d.mean.double().numpy(), d.variance.double().numpy()
        atol = float(6 * np.sqrt(variance).max() / np.sqrt(len(draws)))
        np.testing.assert_allclose(draws.mean(0), mean, atol=atol, err_msg=name)
        np.testing.assert_allclose(draws.var(0), variance, rtol=0.25, err_msg=name)


@pytest.mark.torch
def test_samples_shapes_flags_supports_and_moments(real_torch):
    ac.manual_seed(1)
    ours, theirs = _distributions(ac), _distributions(real_torch)
    for name, d in ours.items():
        e = theirs[name]
        assert (d.batch_shape, d.event_shape) == (e.batch_shape, e.event_shape), name
        assert (d.has_rsample, d.has_enumerate_support) == (e.has_rsample, e.has_enumerate_support)
        assert repr(d.support) == repr(e.support), name
        # the shapes of the seeded draws (the gamma-based samplers compile per bucket of
        # rows); PyTorch's von Mises sampler takes seconds for 60000 draws
        shape = (4000,) if name == "von_mises" else (20000,)
        a, b = d.sample(shape), e.sample(shape)
        assert a.shape == b.shape and str(a.dtype) == str(b.dtype), name
        assert not a.requires_grad, name
        assert bool(d.support.check(a).all()), name
        _check_moments(name, d, a)
        if d.has_rsample:
            assert d.rsample(shape).shape == b.shape, name
        expanded = d.expand((2, 3))
        assert expanded.batch_shape == e.expand((2, 3)).batch_shape, name
        value = e.sample()
        np.testing.assert_allclose(
            expanded.log_prob(ac.tensor(value.numpy())).numpy(),
            e.expand((2, 3)).log_prob(value).numpy(),
            rtol=1e-5,
            atol=1e-6,
            err_msg=name,
        )


# the samplers that transform rand / exponential_ / cauchy_ / uniform_ draws
SEEDED = ("exponential", "laplace", "cauchy", "von_mises", "continuous_bernoulli")
SEEDED += ("generalized_pareto",)


@pytest.mark.torch
def test_seeded_draws_are_pytorchs(real_torch):
    """The samplers built on rand / exponential_ / cauchy_ / uniform_ draws (VonMises'
    rejection loop included) give PyTorch's values: equal up to the rounding of the formula
    (XLA divides by a broadcast divisor as a multiplication by its reciprocal), and the
    generators end in the same state. The shapes of the test above: no new compilations."""
    draws = {}
    for lib in (real_torch, ac):
        lib.manual_seed(3)
        ds = _distributions(lib)
        draws[lib] = [
            ds[name].sample((4000,) if name == "von_mises" else (20000,)).numpy() for name in SEEDED
        ] + [lib.get_rng_state().numpy()]
    for name, ours, theirs in zip(SEEDED, draws[ac], draws[real_torch]):
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, name
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6, err_msg=name)
    np.testing.assert_array_equal(draws[ac][-1], draws[real_torch][-1])


def test_rsample_gradients():
    """d rsample / d parameters: Exponential's -x / rate, Laplace's and Cauchy's 1 in loc."""
    rate = ac.tensor(S, requires_grad=True)
    ac.manual_seed(3)
    x = ac.distributions.Exponential(rate).rsample((10,))
    x.sum().backward()
    np.testing.assert_allclose(rate.grad.numpy(), -(x.detach().numpy() / S).sum(0), rtol=1e-12)
    for family in (ac.distributions.Laplace, ac.distributions.Cauchy):
        loc = ac.tensor(P, requires_grad=True)
        family(loc, ac.tensor(S)).rsample((10,)).sum().backward()
        np.testing.assert_allclose(loc.grad.numpy(), 10.0)


# ----------------------------------------------------------------------------- errors
def _bregman_entropy_without_grad(t):
    """The Bregman entropy differentiates the log normalizer: PyTorch's error under no_grad."""
    with t.no_grad():
        return t.distributions.ExponentialFamily.entropy(t.distributions.Exponential(1.0))


ERRORS = {
    "exponential": lambda t: t.distributions.Exponential(t.tensor([1.0, -1.0])),
    "exponential_value": lambda t: t.distributions.Exponential(1.0).log_prob(t.tensor([-1.0])),
    "laplace": lambda t: t.distributions.Laplace(0.0, t.tensor([0.0])),
    "cauchy": lambda t: t.distributions.Cauchy(t.tensor([float("nan")]), 1.0),
    "student_t": lambda t: t.distributions.StudentT(t.tensor([0.0, 2.0])),
    "fisher_snedecor": lambda t: t.distributions.FisherSnedecor(t.tensor([-1.0]), 2.0),
    "fisher_snedecor_value": lambda t: t.distributions.FisherSnedecor(1.0, 2.0).log_prob(
        t.tensor([0.0])
    ),
    "von_mises": lambda t: t.distributions.VonMises(t.tensor([0.0]), t.tensor([0.0])),
    "von_mises_rsample": lambda t: t.distributions.VonMises(0.0, 1.0).rsample(),
    "continuous_bernoulli_both": lambda t: t.distributions.ContinuousBernoulli(0.5, 0.0),
    "continuous_bernoulli_neither": lambda t: t.distributions.ContinuousBernoulli(),
    "continuous_bernoulli_probs": lambda t: t.distributions.ContinuousBernoulli(
        t.tensor([1.5]), validate_args=True
    ),
    "continuous_bernoulli_value": lambda t: t.distributions.ContinuousBernoulli(0.3).log_prob(
        t.tensor([1.5])
    ),
    "generalized_pareto": lambda t: t.distributions.GeneralizedPareto(0.0, -1.0, 0.5),
    "generalized_pareto_value": lambda t: t.distributions.GeneralizedPareto(
        t.tensor([1.0]), 1.0, -0.5
    ).log_prob(t.tensor([3.5])),
    "generalized_pareto_float64": lambda t: t.distributions.GeneralizedPareto(
        t.tensor([1.0], dtype=t.float64), 1.0, 0.5
    ).log_prob(t.tensor([1.5], dtype=t.float64)),
    "bregman_without_grad": _bregman_entropy_without_grad,
    "kl_across_exponential_families": lambda t: t.distributions.kl_divergence(
        t.distributions.Bernoulli(0.3), t.distributions.Exponential(1.0)
    ),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(ERRORS))
def test_validation_errors(name, real_torch):
    check_error(ERRORS[name], real_torch)


def test_continuous_bernoulli_clamps_probs_unless_validation_is_asked():
    """Without validate_args, probs outside [0, 1] are clamped, as in PyTorch."""
    d = ac.distributions.ContinuousBernoulli(ac.tensor([1.5]))
    assert d.probs.item() == pytest.approx(1 - np.finfo(np.float32).eps)
