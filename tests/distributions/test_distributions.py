"""torch.distributions against real PyTorch: log_prob, entropy, mean and variance and their
float64 gradients in the parameters (also by finite differences), KL divergences, sample
shapes and dtypes, sample moments (loosely), reparameterised gradients, seeding, expand and
the validation errors."""

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
PROBS = np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])
COV = np.array([[2.0, 0.5, 0.1], [0.5, 1.0, 0.2], [0.1, 0.2, 1.5]])
TRIL = np.linalg.cholesky(COV)


def _summary(d, value):
    """What a distribution computes: log_prob of `value`, entropy, mean and variance."""
    return d.log_prob(value), d.entropy(), d.mean, d.variance


# name -> (function of (lib, *parameters), parameters)
SUMMARIES = {
    "normal": (
        lambda t, loc, scale: _summary(t.distributions.Normal(loc, scale), t.tensor(V)),
        [P, S],
    ),
    "uniform": (
        lambda t, low, width: _summary(
            t.distributions.Uniform(low, low + width), low + 0.5 * width
        ),
        [P, S],
    ),
    "bernoulli_probs": (
        lambda t, p: _summary(
            t.distributions.Bernoulli(probs=p), t.tensor([1.0, 0.0, 1.0], dtype=t.float64)
        ),
        [U],
    ),
    "bernoulli_logits": (
        lambda t, x: _summary(
            t.distributions.Bernoulli(logits=x), t.tensor([0.0, 1.0, 1.0], dtype=t.float64)
        ),
        [P],
    ),
    "categorical_probs": (
        lambda t, p: (
            (d := t.distributions.Categorical(probs=p)).log_prob(t.tensor([2, 0])),
            d.entropy(),
            d.logits,
        ),
        [PROBS],
    ),
    "categorical_logits": (
        lambda t, x: (
            (d := t.distributions.Categorical(logits=x)).log_prob(t.tensor([[1], [0]])),
            d.entropy(),
            d.probs,
        ),
        [PROBS - 0.5],
    ),
    "mvn_covariance": (
        lambda t, loc, a: _summary(
            t.distributions.MultivariateNormal(loc, covariance_matrix=a @ a.mT + t.eye(3)),
            t.tensor(np.stack([V, U])),
        ),
        [P, TRIL],
    ),
    "mvn_scale_tril": (
        lambda t, loc, a: _summary(
            t.distributions.MultivariateNormal(loc, scale_tril=a.tril()), t.tensor(V)
        ),
        [P, TRIL],
    ),
    "mvn_precision": (
        lambda t, loc, a: _summary(
            t.distributions.MultivariateNormal(loc, precision_matrix=a @ a.mT + t.eye(3)),
            t.tensor(V),
        ),
        [P, TRIL],
    ),
    "gamma": (
        lambda t, c, r: _summary(t.distributions.Gamma(c, r), t.tensor(S2)),
        [S, S2],
    ),
    "beta": (
        lambda t, a, b: _summary(t.distributions.Beta(a, b), t.tensor(U)),
        [S, S2],
    ),
    "dirichlet": (
        lambda t, c: _summary(t.distributions.Dirichlet(c), t.tensor(PROBS)),
        [np.stack([S, S2])],
    ),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(SUMMARIES))
def test_summaries_against_pytorch(name, real_torch):
    """Values and float64 gradients in the parameters, vs PyTorch and finite differences."""
    fn, params = SUMMARIES[name]
    check_case(fn, params, real_torch, names=False)


KL = {
    "normal": (
        lambda t, a, b: t.distributions.kl_divergence(
            t.distributions.Normal(a, b), t.distributions.Normal(b, a.exp())
        ),
        [P, S],
    ),
    "uniform": (
        lambda t, a, b: t.distributions.kl_divergence(
            t.distributions.Uniform(a, a + b), t.distributions.Uniform(a - b, a + 2 * b)
        ),
        [P, S],
    ),
    "uniform_infinite": (
        lambda t, a, b: t.distributions.kl_divergence(
            t.distributions.Uniform(a, a + b), t.distributions.Uniform(a + 0.5 * b, a + b)
        ),
        [P, S],
        False,  # no finite differences of an infinite result
    ),
    "bernoulli": (
        lambda t, p, x: t.distributions.kl_divergence(
            t.distributions.Bernoulli(probs=p), t.distributions.Bernoulli(logits=x)
        ),
        [U, P],
    ),
    "categorical": (
        lambda t, p, x: t.distributions.kl_divergence(
            t.distributions.Categorical(probs=p), t.distributions.Categorical(logits=x)
        ),
        [PROBS, PROBS.T.reshape(2, 3)],
    ),
    "mvn": (
        lambda t, loc, a: t.distributions.kl_divergence(
            t.distributions.MultivariateNormal(loc, scale_tril=a.tril()),
            t.distributions.MultivariateNormal(
                loc.flip(0).expand(2, 3), covariance_matrix=a @ a.mT + t.eye(3)
            ),
        ),
        [P, TRIL],
    ),
    "gamma": (
        lambda t, c, r: t.distributions.kl_divergence(
            t.distributions.Gamma(c, r), t.distributions.Gamma(r, c)
        ),
        [S, S2],
    ),
    "beta": (
        lambda t, a, b: t.distributions.kl_divergence(
            t.distributions.Beta(a, b), t.distributions.Beta(b, a + 1)
        ),
        [S, S2],
    ),
    "dirichlet": (
        lambda t, c: t.distributions.kl_divergence(
            t.distributions.Dirichlet(c), t.distributions.Dirichlet(c.flip(-1) + 0.5)
        ),
        [np.stack([S, S2])],
    ),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(KL))
def test_kl_against_pytorch(name, real_torch):
    fn, params, *finite = KL[name]
    check_case(fn, params, real_torch, names=False, finite_differences=all(finite))


def _across_families(t, a, b):
    """KL between families: Beta, Gamma and Uniform against the others (finite cases)."""
    D = t.distributions
    beta, gamma = D.Beta(a, b), D.Gamma(a, b)
    uniform = D.Uniform(0.3 * b / (a + b), 0.3 * b / (a + b) + 0.5)  # inside (0, 1)
    kl = D.kl_divergence
    return (
        kl(beta, D.Gamma(b, a)),
        kl(beta, D.Normal(a, b)),
        kl(beta, D.Uniform(-a, 1 + b)),
        kl(gamma, D.Normal(b, a)),
        kl(uniform, D.Beta(a, b)),
        kl(uniform, gamma),
        kl(uniform, D.Normal(a, b)),
    )


def _infinite_across_families(t, a, b):
    """The pairs whose KL is infinite: p's support reaches outside q's."""
    D = t.distributions
    kl = D.kl_divergence
    return (
        kl(D.Beta(a, b), D.Uniform(a, a + b)),
        kl(D.Gamma(a, b), D.Beta(a, b)),
        kl(D.Gamma(a, b), D.Uniform(a, a + b)),
        kl(D.Normal(a, b), D.Gamma(a, b)),
        kl(D.Normal(a, b), D.Beta(a, b)),
        kl(D.Normal(a, b), D.Uniform(a, a + b)),
        kl(D.Uniform(-a, b), D.Beta(a, b)),
        kl(D.Uniform(-a, b), D.Gamma(a, b)),
    )


def _modes_and_gamma_cdf(t, a, b):
    """The modes of Bernoulli (NaN at a tie), Beta and Dirichlet (a vertex where every
    concentration is below 1) and the gamma's CDF (the regularised incomplete gamma)."""
    D = t.distributions
    below_one = t.stack([a / (a + b + 3), b / (a + b + 3)], -1)
    return (
        D.Bernoulli(t.tensor([0.3, 0.5, 0.8], dtype=a.dtype)).mode,
        D.Beta(a, b).mode,
        D.Dirichlet(t.stack([a, b, a + b], -1)).mode,
        D.Dirichlet(below_one).mode,
        D.Gamma(a.detach(), b).cdf(t.tensor(V).abs()),  # (no derivative in the shape)
    )


@pytest.mark.torch
def test_modes_and_gamma_cdf_against_pytorch(real_torch):
    check_case(_modes_and_gamma_cdf, [S, S2], real_torch, names=False, finite_differences=False)


@pytest.mark.torch
def test_kl_across_families_against_pytorch(real_torch):
    check_case(_across_families, [S, S2], real_torch, names=False)
    check_case(_infinite_across_families, [S, S2], real_torch, names=False, grads=False)


def test_register_kl_most_specific_wins():
    """A registration for a subclass pair takes over from the base pair's formula."""
    D = ac.distributions

    class Wide(D.Normal):
        pass

    @D.register_kl(Wide, D.Normal)
    def _kl_wide_normal(p, q):
        return ac.zeros(p.batch_shape) - 1

    assert ac.equal(D.kl_divergence(Wide(0.0, 1.0), D.Normal(1.0, 2.0)), ac.tensor(-1.0))
    assert D.kl_divergence(D.Normal(0.0, 1.0), D.Normal(1.0, 2.0)).item() > 0


# ----------------------------------------------------------------------------- sampling
def _distributions(t):
    """One instance of each family, float32 parameters, batch shape (3,) or (2,)."""
    D = t.distributions
    f = t.float32
    return {
        "normal": D.Normal(t.tensor(P, dtype=f), t.tensor(S, dtype=f)),
        "uniform": D.Uniform(t.tensor(P, dtype=f), t.tensor(P + S, dtype=f)),
        "bernoulli": D.Bernoulli(probs=t.tensor(U, dtype=f)),
        "categorical": D.Categorical(probs=t.tensor(PROBS, dtype=f)),
        "mvn": D.MultivariateNormal(t.tensor(P, dtype=f), t.tensor(COV, dtype=f)),
        "gamma": D.Gamma(t.tensor(S, dtype=f), t.tensor(S2, dtype=f)),
        "beta": D.Beta(t.tensor(S, dtype=f), t.tensor(S2, dtype=f)),
        "dirichlet": D.Dirichlet(t.tensor(PROBS * 4, dtype=f)),
    }


# The gamma-family samplers compile per (dtype, bucket of rows, event size), seconds each:
# every test draws them in float32 and in the bucket of 65536 rows (20000 draws of a batch).
GAMMA_FAMILY = ("gamma", "beta", "dirichlet")


@pytest.mark.torch
def test_sample_shapes_dtypes_and_flags(real_torch):
    ours, theirs = _distributions(ac), _distributions(real_torch)
    for name, d in ours.items():
        e = theirs[name]
        assert (d.batch_shape, d.event_shape) == (e.batch_shape, e.event_shape), name
        assert d.has_rsample == e.has_rsample, name
        for shape in ((20000,),) if name in GAMMA_FAMILY else ((), (2, 5)):
            a, b = d.sample(shape), e.sample(shape)
            assert a.shape == b.shape and str(a.dtype) == str(b.dtype), (name, shape)
            assert not a.requires_grad, name
            if d.has_rsample:
                assert d.rsample(shape).shape == b.shape, (name, shape)


@pytest.mark.parametrize("name", ["normal", "uniform", "bernoulli", "mvn", "gamma", "beta"])
def test_sample_moments(name):
    """The mean and variance of 20000 draws are close to the distribution's (loosely: about
    five standard errors)."""
    ac.manual_seed(1)
    d = _distributions(ac)[name]
    draws = d.sample((20000,)).double().numpy()
    mean, variance = d.mean.double().numpy(), d.variance.double().numpy()
    std = np.sqrt(variance)
    np.testing.assert_allclose(draws.mean(0), mean, atol=float(5 * std.max() / np.sqrt(20000)))
    np.testing.assert_allclose(draws.var(0), variance, rtol=0.1)


def test_categorical_and_dirichlet_sample_frequencies():
    ac.manual_seed(2)
    d = _distributions(ac)
    counts = d["categorical"].sample((20000,)).numpy()
    for row in range(2):
        freq = np.bincount(counts[:, row], minlength=3) / 20000
        np.testing.assert_allclose(freq, PROBS[row], atol=0.02)
    draws = d["dirichlet"].sample((20000,)).double().numpy()
    np.testing.assert_allclose(draws.sum(-1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(draws.mean(0), d["dirichlet"].mean.double().numpy(), atol=0.01)


def test_manual_seed_repeats_draws():
    for name in ("normal", "categorical", "gamma"):
        draws = []
        for _ in range(2):
            ac.manual_seed(7)
            draws.append(_distributions(ac)[name].sample((20000,)).numpy())
        np.testing.assert_array_equal(draws[0], draws[1], err_msg=name)


# ----------------------------------------------------------------------------- rsample
def test_rsample_gradients_location_scale():
    """d mean(rsample) / d loc is 1 (Normal, MVN, Uniform's low and high in sum), and the
    scale's gradient is the mean of the noise that made the sample."""
    loc = ac.tensor(P, requires_grad=True)
    scale = ac.tensor(S, requires_grad=True)
    ac.manual_seed(3)
    x = ac.distributions.Normal(loc, scale).rsample((50,))
    x.mean(0).sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), 1.0)
    eps = (x.detach().numpy() - P) / S
    np.testing.assert_allclose(scale.grad.numpy(), eps.mean(0), rtol=1e-10)

    loc.grad = None
    tril = ac.tensor(TRIL, requires_grad=True)
    ac.distributions.MultivariateNormal(loc, scale_tril=tril).rsample((10,)).mean(
        0
    ).sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), 1.0)
    assert tril.grad is not None

    low = ac.tensor(P, requires_grad=True)
    high = ac.tensor(P + S, requires_grad=True)
    ac.distributions.Uniform(low, high).rsample((10,)).sum().backward()
    np.testing.assert_allclose(low.grad.numpy() + high.grad.numpy(), 10.0)


@pytest.mark.torch
def test_gamma_rsample_gradient_is_pytorchs_implicit_gradient(real_torch):
    """dx/dconcentration of our gamma samples equals PyTorch's _standard_gamma_grad at those
    samples (implicit reparameterisation), and the rate enters as x / rate."""
    c = ac.tensor(np.array([0.3, 1.0, 4.0]), dtype=ac.float32, requires_grad=True)
    r = ac.tensor(S2, dtype=ac.float32, requires_grad=True)
    ac.manual_seed(4)
    x = ac.distributions.Gamma(c, r).rsample((20000,))
    x.sum().backward()
    rate = S2.astype(np.float32)
    standard = x.detach().numpy() * rate
    expected = real_torch._standard_gamma_grad(
        real_torch.tensor(np.broadcast_to(c.detach().numpy(), standard.shape).copy()),
        real_torch.tensor(standard),
    ).numpy()
    np.testing.assert_allclose(c.grad.numpy(), (expected / rate).sum(0), rtol=2e-3)
    np.testing.assert_allclose(r.grad.numpy(), -(x.detach().numpy() / rate).sum(0), rtol=1e-4)


def test_beta_and_dirichlet_rsample_gradients_are_unbiased():
    """The average reparameterised gradient of E[x] matches the gradient of the exact mean."""
    ac.manual_seed(5)
    a = ac.tensor(S, dtype=ac.float32, requires_grad=True)
    b = ac.tensor(S2, dtype=ac.float32, requires_grad=True)
    ac.distributions.Beta(a, b).rsample((20000,)).mean(0).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), S2 / (S + S2) ** 2, rtol=0.05)
    np.testing.assert_allclose(b.grad.numpy(), -S / (S + S2) ** 2, rtol=0.05)

    c = ac.tensor(PROBS * 4, dtype=ac.float32, requires_grad=True)
    x = ac.distributions.Dirichlet(c).rsample((20000,))
    x[..., 0].mean(0).sum().backward()
    # d(c0 / sum c) / dc = (sum c - c0, -c0, -c0) / (sum c)^2, per row
    total, first = 4.0, PROBS[:, :1] * 4
    expected = np.concatenate([total - first, -first, -first], axis=1) / total**2
    np.testing.assert_allclose(c.grad.numpy(), expected, rtol=0.05, atol=2e-3)


# ----------------------------------------------------------------------------- shapes
@pytest.mark.torch
def test_expand_and_repr(real_torch):
    for lib in (ac, real_torch):
        lib.manual_seed(0)
    ours, theirs = _distributions(ac), _distributions(real_torch)
    for name in ("normal", "bernoulli", "uniform"):
        a, b = ours[name].expand((2, 3)), theirs[name].expand((2, 3))
        assert a.batch_shape == b.batch_shape and a.sample().shape == b.sample().shape
        value = theirs[name].sample()
        np.testing.assert_allclose(
            a.log_prob(ac.tensor(value.numpy())).numpy(), b.log_prob(value).numpy(), rtol=1e-6
        )
        assert repr(a) == repr(b)
    for name in ("categorical", "mvn", "gamma", "dirichlet"):
        a = ours[name].expand((4, *ours[name].batch_shape))
        b = theirs[name].expand((4, *theirs[name].batch_shape))
        assert (a.batch_shape, a.event_shape) == (b.batch_shape, b.event_shape)
        value = b.sample()
        np.testing.assert_allclose(
            a.log_prob(ac.tensor(value.numpy())).numpy(), b.log_prob(value).numpy(), rtol=1e-5
        )
    assert repr(ac.distributions.Normal(0.0, 1.0)) == repr(
        real_torch.distributions.Normal(0.0, 1.0)
    )


# ----------------------------------------------------------------------------- errors
ERRORS = {
    "normal_scale": lambda t: t.distributions.Normal(t.tensor([0.0, 1.0]), t.tensor([1.0, -1.0])),
    "normal_nan_loc": lambda t: t.distributions.Normal(t.tensor([float("nan"), 1.0]), 1.0),
    "normal_number": lambda t: t.distributions.Normal(0.0, -1.0),
    "normal_value": lambda t: t.distributions.Normal(0.0, 1.0).log_prob(t.tensor([float("nan")])),
    "not_a_tensor": lambda t: t.distributions.Normal(0.0, 1.0).log_prob(1.0),
    "value_shape": lambda t: t.distributions.Normal(t.zeros(3), 1.0).log_prob(t.zeros(4)),
    "uniform_bounds": lambda t: t.distributions.Uniform(t.tensor([2.0, 0.0]), t.tensor([1.0, 1.0])),
    "uniform_value": lambda t: t.distributions.Uniform(0.0, 1.0).log_prob(t.tensor(1.5)),
    "bernoulli_both": lambda t: t.distributions.Bernoulli(probs=0.5, logits=0.0),
    "bernoulli_probs": lambda t: t.distributions.Bernoulli(probs=t.tensor([1.5])),
    "bernoulli_value": lambda t: t.distributions.Bernoulli(0.5).log_prob(t.tensor([0.5])),
    "categorical_simplex": lambda t: t.distributions.Categorical(probs=t.tensor([-0.1, 1.1])),
    "categorical_value": lambda t: t.distributions.Categorical(t.tensor([0.5, 0.5])).log_prob(
        t.tensor(2)
    ),
    "categorical_0d": lambda t: t.distributions.Categorical(probs=t.tensor(1.0)),
    "mvn_not_pd": lambda t: t.distributions.MultivariateNormal(
        t.zeros(2), t.tensor([[1.0, 2.0], [2.0, 1.0]])
    ),
    "mvn_not_symmetric": lambda t: t.distributions.MultivariateNormal(
        t.zeros(2), t.tensor([[1.0, 0.5], [0.0, 1.0]])
    ),
    "mvn_scale_tril": lambda t: t.distributions.MultivariateNormal(
        t.zeros(2), scale_tril=t.tensor([[1.0, 0.5], [0.0, 1.0]])
    ),
    "mvn_two_matrices": lambda t: t.distributions.MultivariateNormal(
        t.zeros(2), t.eye(2), scale_tril=t.eye(2)
    ),
    "mvn_0d_loc": lambda t: t.distributions.MultivariateNormal(t.tensor(0.0), t.eye(2)),
    "gamma": lambda t: t.distributions.Gamma(t.tensor([0.0, 1.0]), 1.0),
    "gamma_value": lambda t: t.distributions.Gamma(1.0, 1.0).log_prob(t.tensor([-1.0])),
    "dirichlet": lambda t: t.distributions.Dirichlet(t.tensor([1.0, -2.0])),
    "dirichlet_value": lambda t: t.distributions.Dirichlet(t.tensor([1.0, 2.0])).log_prob(
        t.tensor([0.5, 0.6])
    ),
    "beta": lambda t: t.distributions.Beta(t.tensor([1.0, 2.0]), t.tensor([0.0, 1.0])),
    "beta_value": lambda t: t.distributions.Beta(2.0, 3.0).log_prob(t.tensor(1.5)),
    "kl_not_implemented": lambda t: t.distributions.kl_divergence(
        t.distributions.Categorical(t.tensor([0.5, 0.5])), t.distributions.Normal(0.0, 1.0)
    ),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(ERRORS))
def test_validation_errors(name, real_torch):
    check_error(ERRORS[name], real_torch)


def test_validate_args_false_skips_checks():
    d = ac.distributions.Normal(0.0, -1.0, validate_args=False)
    assert np.isnan(d.log_prob(ac.tensor(0.0)).item())
