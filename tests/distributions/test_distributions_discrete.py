"""Binomial, Poisson, Geometric, NegativeBinomial, Multinomial, OneHotCategorical (and its
straight-through form), MixtureSameFamily, LowRankMultivariateNormal and LKJCholesky against
real PyTorch: log_prob, entropy, mean and variance with their float64 gradients in the
parameters, the KL divergences PyTorch registers for them, sample shapes, dtypes and supports,
enumerate_support, draws equal to PyTorch's where its sampler is a formula of
rand/randn/multinomial, moments of the Poisson and binomial counts, expand and the validation
errors."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat as ac
from tests._helpers.torch_compare import check_case, check_error

U = np.array([0.2, 0.9, 0.55])  # values in (0, 1)
P = np.array([0.5, -1.0, 2.0])  # real parameters
S = np.array([1.5, 0.3, 0.8])  # positive parameters
S2 = np.array([0.7, 2.0, 1.2])
COUNTS = np.array([1.0, 2.0, 0.0])
PROBS = np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])
ONE_HOT = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
FACTOR = np.array([[1.0, 0.5, 0.0], [0.2, -0.1, 0.4], [0.0, 0.3, 0.1]])  # a covariance factor
CORR_TRIL = np.linalg.cholesky(np.array([[1.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 1.0]]))


def _summary(d, value):
    """What a distribution computes: log_prob of `value`, entropy, mean and variance."""
    return d.log_prob(value), d.entropy(), d.mean, d.variance


def _no_entropy(d, value):
    """log_prob, mean and variance of a distribution without a closed-form entropy."""
    return d.log_prob(value), d.mean, d.variance


def _mixture(t, logits, loc, scale):
    D = t.distributions
    return D.MixtureSameFamily(D.Categorical(logits=logits), D.Normal(loc, scale))


def _lowrank_summary(t, loc, factor, diag):
    d = t.distributions.LowRankMultivariateNormal(loc, factor, diag)
    values = t.tensor(np.stack([P[::-1], U]))
    return (
        *_summary(d, values),
        d.covariance_matrix,
        d.precision_matrix,
        d.scale_tril,
    )


def _binomial(t, p, x):
    d = t.distributions.Binomial(3, probs=p)
    by_logits = t.distributions.Binomial(t.tensor(S * 10).floor(), logits=x)
    return (
        *_summary(d, t.tensor(COUNTS)),
        d.mode,
        d.enumerate_support(),
        *_no_entropy(by_logits, t.tensor(COUNTS)),
    )


def _geometric(t, p, x):
    D = t.distributions
    return (
        *_summary(D.Geometric(probs=p), t.tensor(COUNTS)),
        *_summary(D.Geometric(logits=x), t.tensor(COUNTS)),
    )


def _negative_binomial(t, n, p, x):
    D = t.distributions
    d = D.NegativeBinomial(n, probs=p)
    by_logits = D.NegativeBinomial(2.5, logits=x)
    return (
        *_no_entropy(d, t.tensor(COUNTS)),
        d.mode,
        *_no_entropy(by_logits, t.tensor(COUNTS[::-1].copy())),
    )


def _multinomial(t, p, x):
    D = t.distributions
    return (
        *_summary(D.Multinomial(3, probs=p), t.tensor(np.array([[1.0, 2, 0], [0, 0, 3]]))),
        *_no_entropy(D.Multinomial(5, logits=x), t.tensor(np.array([[4.0, 0, 1], [0, 2, 3]]))),
    )


def _one_hot_categorical(t, p, x):
    D = t.distributions
    d = D.OneHotCategorical(p)
    straight_through = D.OneHotCategoricalStraightThrough(logits=x)
    return (
        *_summary(d, t.tensor(ONE_HOT)),
        d.mode,
        d.enumerate_support(),
        *_summary(straight_through, t.tensor(ONE_HOT[0])),
    )


def _mixture_summary(t, logits, loc, scale):
    d = _mixture(t, logits, loc, scale)
    return (*_no_entropy(d, t.tensor(U[:2])), d.cdf(t.tensor(P[:2])))


# name -> (function of (lib, *parameters), parameters): one case per distribution, each
# parameterised both ways where it can be
SUMMARIES = {
    "binomial": (_binomial, [U, P]),
    "poisson": (
        lambda t, r: (*_no_entropy(d := t.distributions.Poisson(r), t.tensor(COUNTS)), d.mode),
        [S],
    ),
    "geometric": (_geometric, [U, P]),
    "negative_binomial": (_negative_binomial, [S, U, P]),
    "multinomial": (_multinomial, [PROBS, PROBS - 0.5]),
    "one_hot_categorical": (_one_hot_categorical, [PROBS, PROBS - 0.5]),
    "mixture_same_family": (_mixture_summary, [P, np.stack([P, U]), np.stack([S, S2])]),
    "lowrank_multivariate_normal": (_lowrank_summary, [P, FACTOR, S]),
    "lkj_cholesky": (
        lambda t, c: t.distributions.LKJCholesky(3, c).log_prob(t.tensor(CORR_TRIL)),
        [S],
    ),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(SUMMARIES))
def test_summaries_against_pytorch(name, real_torch):
    """Values and float64 gradients in the parameters vs PyTorch's (finite differences left
    out: they compile each program once more without grad, and the file is at its budget)."""
    fn, params = SUMMARIES[name]
    check_case(fn, params, real_torch, names=False, finite_differences=False)


def _kl_finite(t, a, b, loc, factor):
    """The KL divergences PyTorch registers for these families, at finite values."""
    D = t.distributions
    kl = D.kl_divergence
    lowrank = D.LowRankMultivariateNormal(loc, factor, a)
    other = D.LowRankMultivariateNormal(loc.flip(0), factor.flip(0) * 0.5, b)
    mvn = D.MultivariateNormal(loc * 0.5, covariance_matrix=factor @ factor.mT + t.diag(b))
    probs = a / (a + b)
    return (
        kl(D.Binomial(3, probs), D.Binomial(3, probs.flip(0))),
        kl(D.Geometric(probs), D.Geometric(logits=loc)),
        kl(D.Poisson(a), D.Poisson(b)),
        kl(D.Bernoulli(probs), D.Poisson(b)),
        kl(D.OneHotCategorical(t.stack([a, b])), D.OneHotCategorical(logits=t.stack([b, a]))),
        kl(lowrank, other),
        kl(mvn, lowrank),
        kl(lowrank, mvn),
    )


def _kl_infinite(t, a, b):
    """The pairs whose KL is infinite: p's support reaches outside q's, or more trials."""
    D = t.distributions
    kl = D.kl_divergence
    probs = a / (a + b)
    return (
        kl(D.Binomial(t.tensor([3.0, 4.0, 3.0]), probs), D.Binomial(3, probs.flip(0))),
        kl(D.Poisson(a), D.Bernoulli(probs)),
        kl(D.Poisson(a), D.Binomial(5, probs)),
    )


@pytest.mark.torch
def test_kl_against_pytorch(real_torch):
    check_case(_kl_finite, [S, S2, P, FACTOR], real_torch, names=False, finite_differences=False)
    check_case(_kl_infinite, [S, S2], real_torch, names=False, grads=False)


# ----------------------------------------------------------------------------- sampling
def _distributions(t):
    """One instance of each, float32 parameters."""
    D = t.distributions
    f = t.float32
    probs, u = t.tensor(PROBS, dtype=f), t.tensor(U, dtype=f)
    return {
        "binomial": D.Binomial(t.tensor([5.0, 10.0, 20.0]), u),
        "poisson": D.Poisson(t.tensor(S * 10, dtype=f)),
        "geometric": D.Geometric(u),
        "negative_binomial": D.NegativeBinomial(t.tensor(S2 * 3, dtype=f), u * 0.9),
        "multinomial": D.Multinomial(5, probs),
        "one_hot": D.OneHotCategorical(probs),
        "one_hot_straight_through": D.OneHotCategoricalStraightThrough(logits=probs),
        "mixture": D.MixtureSameFamily(
            D.Categorical(probs), D.Normal(t.tensor(PROBS * 4, dtype=f), probs + 0.5)
        ),
        "lowrank": D.LowRankMultivariateNormal(
            t.tensor(P, dtype=f), t.tensor(FACTOR, dtype=f), t.tensor(S, dtype=f)
        ),
        "lkj": D.LKJCholesky(3, t.tensor([0.5, 2.0])),
    }


# drawn with the generator's PyTorch stream: the very values PyTorch draws
PYTORCH_DRAWS = (
    "geometric",
    "multinomial",
    "one_hot",
    "one_hot_straight_through",
    "mixture",
    "lowrank",
)
# the draws whose moments are tested, by their sample shape (each shape compiles the
# samplers again, seconds): Poisson and binomial counts, which PyTorch draws natively, and
# LKJ's Beta draws
MOMENT_DRAWS = {
    "binomial": (20000,),
    "poisson": (20000,),
    "negative_binomial": (20000,),
    "lkj": (4000,),
}


@pytest.mark.torch
def test_samples_shapes_dtypes_supports_and_pytorchs_draws(real_torch):
    ours, theirs = _distributions(ac), _distributions(real_torch)
    for name, d in ours.items():
        e = theirs[name]
        assert (d.batch_shape, d.event_shape) == (e.batch_shape, e.event_shape), name
        assert d.has_rsample == e.has_rsample, name
        assert d.has_enumerate_support == e.has_enumerate_support, name
        assert repr(d) == repr(e), name
        shape = MOMENT_DRAWS.get(name, (4, 5))
        for lib in (ac, real_torch):
            lib.manual_seed(11)
        a, b = d.sample(shape), e.sample(shape)
        assert a.shape == b.shape and str(a.dtype) == str(b.dtype), name
        assert not a.requires_grad, name
        assert bool(d.support.check(a).all()), name
        if name in PYTORCH_DRAWS:  # the same noise (the arithmetic on it to an ulp of its
            # terms, which are of order 1: a draw near 0 is a difference of such terms)
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-6, err_msg=name)
        if d.has_rsample:
            assert d.rsample(shape).shape == b.shape, name


@pytest.mark.parametrize("name", ["binomial", "poisson", "negative_binomial"])
def test_count_moments(name):
    """Mean and variance of 20000 draws near the distribution's (loosely: about five
    standard errors for the mean, 10% for the variance); integer counts, repeatable."""
    ac.manual_seed(1)
    d = _distributions(ac)[name]
    draws = d.sample(MOMENT_DRAWS[name]).double().numpy()
    assert np.all(draws >= 0) and np.all(draws % 1 == 0)
    mean, variance = d.mean.double().numpy(), d.variance.double().numpy()
    np.testing.assert_allclose(draws.mean(0), mean, atol=float(5 * np.sqrt(variance.max() / 20000)))
    np.testing.assert_allclose(draws.var(0), variance, rtol=0.1)
    ac.manual_seed(1)
    np.testing.assert_array_equal(d.sample(MOMENT_DRAWS[name]).double().numpy(), draws)


def test_binomial_draws_at_the_edges():
    """No trials, or a certain outcome, give exact counts."""
    d = ac.distributions.Binomial(ac.tensor([0.0, 7.0, 7.0]), ac.tensor([0.5, 0.0, 1.0]))
    draws = d.sample(MOMENT_DRAWS["binomial"]).numpy()  # a shape compiled already
    np.testing.assert_array_equal(draws, np.broadcast_to([0.0, 0.0, 7.0], draws.shape))


def test_lkj_correlations():
    """Off-diagonal correlations of LKJ(3, eta) have mean 0 and variance 1 / (2 eta + 2);
    each draw's rows have unit norm."""
    ac.manual_seed(2)
    tril = _distributions(ac)["lkj"].sample(MOMENT_DRAWS["lkj"]).double().numpy()
    corr = tril @ np.swapaxes(tril, -1, -2)
    np.testing.assert_allclose(np.diagonal(corr, axis1=-2, axis2=-1), 1.0, atol=1e-5)
    r = corr[..., 1, 0]
    np.testing.assert_allclose(r.mean(0), 0.0, atol=0.05)
    np.testing.assert_allclose(r.var(0), 1 / (2 * np.array([0.5, 2.0]) + 2), rtol=0.1)


def test_straight_through_gradient_is_the_probs():
    """rsample is the one-hot sample forward and the identity on `probs` backward."""
    logits = ac.tensor(PROBS, requires_grad=True)
    d = ac.distributions.OneHotCategoricalStraightThrough(logits=logits)
    weights = ac.tensor([1.0, -2.0, 0.5], dtype=ac.float64)
    sample = d.rsample((3,))
    (sample * weights).sum().backward()
    assert set(np.unique(sample.detach().numpy())) <= {0.0, 1.0}
    p = d.probs.detach().numpy()
    w = weights.numpy()
    expected = 3 * p * (w - (p * w).sum(-1, keepdims=True))  # softmax's Jacobian times w
    np.testing.assert_allclose(logits.grad.numpy(), expected, rtol=1e-10)


# expand's own code past the shared one: log_prob of the expanded distribution is compared
EXPANDED_LOG_PROBS = ("mixture", "lowrank")


@pytest.mark.torch
def test_enumerate_support_and_expand(real_torch):
    ours, theirs = _distributions(ac), _distributions(real_torch)
    binomials = [lib.distributions.Binomial(4, lib.tensor(U)) for lib in (ac, real_torch)]
    for a, b in (binomials, (ours["one_hot"], theirs["one_hot"])):
        for expand in (True, False):
            np.testing.assert_array_equal(
                a.enumerate_support(expand).numpy(), b.enumerate_support(expand).numpy()
            )
    for name in ours:
        a = ours[name].expand((4, *ours[name].batch_shape))
        b = theirs[name].expand((4, *theirs[name].batch_shape))
        assert (a.batch_shape, a.event_shape) == (b.batch_shape, b.event_shape), name
        if name not in EXPANDED_LOG_PROBS:
            continue
        real_torch.manual_seed(0)
        value = b.sample()
        np.testing.assert_allclose(
            a.log_prob(ac.tensor(value.numpy())).numpy(),
            b.log_prob(value).numpy(),
            rtol=1e-5,
            err_msg=name,
        )


# ----------------------------------------------------------------------------- errors
def _lowrank(t, loc=(3,), factor=(3, 3), diag=(3,)):
    """A LowRankMultivariateNormal of the given shapes (float64, as the summary's)."""
    f = t.float64
    return t.distributions.LowRankMultivariateNormal(
        t.zeros(loc, dtype=f), t.ones(factor, dtype=f), t.ones(diag, dtype=f)
    )


ERRORS = {
    "binomial_both": lambda t: t.distributions.Binomial(3, probs=0.5, logits=0.0),
    "binomial_probs": lambda t: t.distributions.Binomial(3, t.tensor([1.5])),
    "binomial_total_count": lambda t: t.distributions.Binomial(t.tensor([2.5]), t.tensor([0.5])),
    "binomial_value": lambda t: t.distributions.Binomial(
        t.tensor([2.0, 3.0]), t.tensor([0.5, 0.5])
    ).log_prob(t.tensor([3.0, 1.0])),
    "binomial_entropy_inhomogeneous": lambda t: t.distributions.Binomial(
        t.tensor([2.0, 3.0]), t.tensor([0.5, 0.5])
    ).entropy(),
    "poisson_rate": lambda t: t.distributions.Poisson(t.tensor([1.0, -1.0])),
    "poisson_value": lambda t: t.distributions.Poisson(2.0).log_prob(t.tensor(1.5)),
    "geometric_zero": lambda t: t.distributions.Geometric(t.tensor([0.5, 0.0])),
    "geometric_probs": lambda t: t.distributions.Geometric(t.tensor([1.5])),
    "geometric_value": lambda t: t.distributions.Geometric(0.5).log_prob(t.tensor([-1.0])),
    "negative_binomial_probs": lambda t: t.distributions.NegativeBinomial(
        2.0, probs=t.tensor([1.0])
    ),
    "negative_binomial_total_count": lambda t: t.distributions.NegativeBinomial(
        t.tensor([-1.0]), logits=t.tensor([0.0])
    ),
    "multinomial_total_count": lambda t: t.distributions.Multinomial(2.0, t.tensor([0.5, 0.5])),
    "multinomial_value": lambda t: t.distributions.Multinomial(2, t.tensor([0.5, 0.5])).log_prob(
        t.tensor([2.0, 1.0])
    ),
    "one_hot_value": lambda t: t.distributions.OneHotCategorical(t.tensor([0.5, 0.5])).log_prob(
        t.tensor([1.0, 1.0])
    ),
    "one_hot_none": lambda t: t.distributions.OneHotCategorical(),
    "mixture_not_categorical": lambda t: t.distributions.MixtureSameFamily(
        t.distributions.Normal(0.0, 1.0), t.distributions.Normal(t.zeros(2), 1.0)
    ),
    "mixture_components": lambda t: t.distributions.MixtureSameFamily(
        t.distributions.Categorical(t.ones(3)), t.distributions.Normal(t.zeros(2), 1.0)
    ),
    "mixture_batch": lambda t: t.distributions.MixtureSameFamily(
        t.distributions.Categorical(t.ones(3, 2)), t.distributions.Normal(t.zeros(4, 2), 1.0)
    ),
    "mixture_value": lambda t: t.distributions.MixtureSameFamily(
        t.distributions.Categorical(t.ones(2)), t.distributions.Gamma(t.ones(2), 1.0)
    ).log_prob(t.tensor([-1.0])),
    "lowrank_factor_dims": lambda t: _lowrank(t, factor=(3,)),
    "lowrank_factor_rows": lambda t: _lowrank(t, factor=(2, 2)),
    "lowrank_diag": lambda t: _lowrank(t, diag=(2,)),
    "lowrank_batch": lambda t: _lowrank(t, loc=(2, 3), factor=(4, 3, 3)),
    "lowrank_diag_positive": lambda t: t.distributions.LowRankMultivariateNormal(
        t.zeros(3, dtype=t.float64), t.ones(3, 3, dtype=t.float64), t.tensor(P)
    ),
    "lkj_dim": lambda t: t.distributions.LKJCholesky(1, 1.0),
    "lkj_concentration": lambda t: t.distributions.LKJCholesky(3, t.tensor([0.0])),
    "lkj_value": lambda t: t.distributions.LKJCholesky(2, 1.0).log_prob(t.eye(2) * 2),
    "kl_binomial_total_count": lambda t: t.distributions.kl_divergence(
        t.distributions.Binomial(2, t.tensor([0.5])), t.distributions.Binomial(3, t.tensor([0.5]))
    ),
    "kl_lowrank_event_shapes": lambda t: t.distributions.kl_divergence(
        _lowrank(t), _lowrank(t, loc=(1,), factor=(1, 3), diag=(1,))
    ),
    "kl_lowrank_mvn_event_shapes": lambda t: t.distributions.kl_divergence(
        _lowrank(t), t.distributions.MultivariateNormal(t.zeros(1), t.eye(1))
    ),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(ERRORS))
def test_validation_errors(name, real_torch):
    check_error(ERRORS[name], real_torch)
