"""RelaxedBernoulli, RelaxedOneHotCategorical (and their bases LogitRelaxedBernoulli and
ExpRelaxedCategorical), Wishart and Chi2 against real PyTorch: log_prob, entropy, mean and
variance with their float64 gradients in the parameters, sample shapes and support,
gradients through rsample, expand, and the validation errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograd_compat as ac
from tests._helpers.torch_compare import check_case, check_error

U = np.array([0.2, 0.9, 0.55])  # values in (0, 1)
P = np.array([0.5, -1.0, 2.0])  # real parameters
T = np.array([0.7])  # a temperature
PROBS = np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])
SIMPLEX = np.array([[0.1, 0.6, 0.3], [0.3, 0.3, 0.4]])
COV = np.array([[2.0, 0.5], [0.5, 1.0]])
VALUE = np.array([[1.0, 0.2], [0.2, 2.0]])
DF = np.array([3.0, 4.5])


def _wishart(t, df, a, **kwargs):
    """A Wishart of a positive-definite matrix made from `a` (as `kwargs["by"]` names)."""
    matrix = a @ a.mT + t.eye(2)
    by = kwargs.get("by", "covariance_matrix")
    if by == "scale_tril":
        matrix = t.linalg.cholesky(matrix)
    return t.distributions.Wishart(df, **{by: matrix})


def _wishart_summary(t, df, a, by):
    d = _wishart(t, df, a, by=by)
    return d.log_prob(t.tensor(VALUE)), d.entropy(), d.mean, d.variance


SUMMARIES = {
    "relaxed_bernoulli_probs": (
        lambda t, temp, p: t.distributions.RelaxedBernoulli(temp, probs=p).log_prob(t.tensor(U)),
        [T, U[::-1].copy()],
    ),
    "relaxed_bernoulli_logits": (
        lambda t, temp, x: t.distributions.RelaxedBernoulli(temp, logits=x).log_prob(t.tensor(U)),
        [T, P],
    ),
    "logit_relaxed_bernoulli": (
        lambda t, temp, x: t.distributions.relaxed_bernoulli.LogitRelaxedBernoulli(
            temp, logits=x
        ).log_prob(t.tensor(P[::-1].copy())),
        [T, P],
    ),
    "relaxed_one_hot_probs": (
        lambda t, temp, p: t.distributions.RelaxedOneHotCategorical(temp, probs=p).log_prob(
            t.tensor(SIMPLEX)
        ),
        [T, PROBS],
    ),
    "relaxed_one_hot_logits": (
        lambda t, temp, x: t.distributions.RelaxedOneHotCategorical(temp, logits=x).log_prob(
            t.tensor(SIMPLEX[0])
        ),
        [T, PROBS - 0.5],
    ),
    "exp_relaxed_categorical": (
        lambda t, temp, x: t.distributions.relaxed_categorical.ExpRelaxedCategorical(
            temp, logits=x
        ).log_prob(t.tensor(np.log(SIMPLEX))),
        [T, PROBS],
    ),
    "wishart_covariance": (
        lambda t, df, a: _wishart_summary(t, df, a, "covariance_matrix"),
        [DF, COV],
    ),
    "wishart_scale_tril": (lambda t, df, a: _wishart_summary(t, df, a, "scale_tril"), [DF, COV]),
    "wishart_precision": (
        lambda t, df, a: _wishart_summary(t, df, a, "precision_matrix"),
        [DF, COV],
    ),
    "chi2": (
        lambda t, df: (
            (d := t.distributions.Chi2(df)).log_prob(t.tensor(U * 3)),
            d.entropy(),
            d.mean,
            d.variance,
        ),
        [np.array([1.0, 2.5, 4.0])],
    ),
}


@pytest.mark.parametrize("name", sorted(SUMMARIES))
def test_summaries_against_pytorch(name, real_torch):
    """Values and float64 gradients in the parameters, vs PyTorch and finite differences."""
    fn, params = SUMMARIES[name]
    check_case(fn, params, real_torch, names=False)


def _distributions(t):
    """One instance of each, float32 parameters."""
    D = t.distributions
    f = t.float32
    return {
        "relaxed_bernoulli": D.RelaxedBernoulli(t.tensor(0.5), probs=t.tensor(U, dtype=f)),
        "relaxed_one_hot": D.RelaxedOneHotCategorical(
            t.tensor(0.5), logits=t.tensor(PROBS, dtype=f)
        ),
        "wishart": D.Wishart(t.tensor(DF, dtype=f), covariance_matrix=t.tensor(COV, dtype=f)),
    }


def test_shapes_support_mean_and_expand(real_torch):
    f32 = real_torch.float32
    ours, theirs = _distributions(ac), _distributions(real_torch)
    for name, d in ours.items():
        e = theirs[name]
        assert (d.batch_shape, d.event_shape) == (e.batch_shape, e.event_shape), name
        assert d.has_rsample == e.has_rsample and repr(d) == repr(e), name
        # each new shape compiles the samplers again (seconds): one shape here, and () below
        for shape in ((2000,),) if name == "wishart" else ((4, 5),):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # PyTorch's Wishart warns on every draw
                expected = e.sample(shape)
            sample = d.sample(shape)  # rsample's draws (their gradients: the tests below)
            assert sample.shape == expected.shape, (name, shape)
            assert str(sample.dtype) == str(expected.dtype) and not sample.requires_grad
            assert bool(d.support.check(sample).all()), name
        if name == "wishart":
            np.testing.assert_allclose(sample.double().mean(0).numpy(), e.mean.numpy(), rtol=0.15)
        a = d.expand((3, *d.batch_shape))
        b = e.expand((3, *e.batch_shape))
        assert (a.batch_shape, a.event_shape) == (b.batch_shape, b.event_shape), name
        assert a.sample().shape == b.batch_shape + b.event_shape, name
        if name == "wishart":
            value = e.mean
        else:
            value = real_torch.tensor(U if name == "relaxed_bernoulli" else SIMPLEX, dtype=f32)
        np.testing.assert_allclose(
            a.log_prob(ac.tensor(value.numpy())).numpy(),
            b.log_prob(value).numpy(),
            rtol=1e-5,
            err_msg=name,
        )


def test_relaxed_rsample_gradients():
    """The sample is sigmoid((logistic noise + logit) / T) (softmax of (logits + Gumbel
    noise) / T for the one-hot form): its gradients follow from the sample itself."""
    ac.manual_seed(0)
    logits = ac.tensor(P, requires_grad=True)
    temperature = ac.tensor(0.7, requires_grad=True)
    x = ac.distributions.RelaxedBernoulli(temperature, logits=logits).rsample((50,))
    x.sum().backward()
    s = x.detach().double().numpy()
    np.testing.assert_allclose(logits.grad.numpy(), (s * (1 - s) / 0.7).sum(0), rtol=1e-4)
    noise_plus_logit = np.log(s) - np.log1p(-s)  # = (noise + logit) / T
    expected = (s * (1 - s) * -noise_plus_logit / 0.7).sum()
    np.testing.assert_allclose(temperature.grad.item(), expected, rtol=1e-4)

    logits = ac.tensor(PROBS, requires_grad=True)
    y = ac.distributions.RelaxedOneHotCategorical(0.5, logits=logits).rsample((20,))
    weights = ac.tensor([1.0, -2.0, 0.5], dtype=ac.float64)
    (y * weights).sum().backward()
    s = y.detach().numpy()
    w = weights.numpy()
    # d softmax(z / T) . w / d logits = s * (w - s . w) / T
    expected = (s * (w - (s * w).sum(-1, keepdims=True)) / 0.5).sum(0)
    np.testing.assert_allclose(logits.grad.numpy(), expected, rtol=1e-6)


def test_wishart_rsample_gradient_in_the_scale():
    """S = L W L^T for the Bartlett draw W, so d sum(S * C) / dL = (C + C^T) L W."""
    ac.manual_seed(1)
    tril = ac.tensor(np.linalg.cholesky(COV), requires_grad=True)
    d = ac.distributions.Wishart(ac.tensor(3.0, dtype=ac.float64), scale_tril=tril)
    s = d.rsample()
    c = np.array([[1.0, 2.0], [-1.0, 0.5]])
    (s * ac.tensor(c)).sum().backward()
    l_inv = np.linalg.inv(tril.detach().numpy())
    w = l_inv @ s.detach().numpy() @ l_inv.T
    expected = np.tril((c + c.T) @ tril.detach().numpy() @ w)
    np.testing.assert_allclose(np.tril(tril.grad.numpy()), expected, rtol=1e-8)


ERRORS = {
    "relaxed_bernoulli_both": lambda t: t.distributions.RelaxedBernoulli(
        t.tensor(1.0), probs=0.5, logits=0.0
    ),
    "relaxed_bernoulli_probs": lambda t: t.distributions.RelaxedBernoulli(
        t.tensor(1.0), probs=t.tensor([1.5])
    ),
    "relaxed_bernoulli_value": lambda t: t.distributions.RelaxedBernoulli(
        t.tensor(1.0), probs=t.tensor([0.5])
    ).log_prob(t.tensor([1.5])),
    "relaxed_one_hot_none": lambda t: t.distributions.RelaxedOneHotCategorical(t.tensor(1.0)),
    "relaxed_one_hot_simplex": lambda t: t.distributions.RelaxedOneHotCategorical(
        t.tensor(1.0), probs=t.tensor([-0.1, 1.1])
    ),
    "relaxed_one_hot_value": lambda t: t.distributions.RelaxedOneHotCategorical(
        t.tensor(1.0), probs=t.tensor([0.5, 0.5])
    ).log_prob(t.tensor([0.5, 0.6])),
    "wishart_two_matrices": lambda t: t.distributions.Wishart(
        3.0, covariance_matrix=t.eye(2), scale_tril=t.eye(2)
    ),
    "wishart_1d": lambda t: t.distributions.Wishart(3.0, covariance_matrix=t.ones(2)),
    "wishart_df": lambda t: t.distributions.Wishart(1.0, covariance_matrix=t.eye(2)),
    "wishart_not_pd": lambda t: t.distributions.Wishart(
        3.0, covariance_matrix=t.tensor([[1.0, 2.0], [2.0, 1.0]])
    ),
    "wishart_value": lambda t: t.distributions.Wishart(3.0, covariance_matrix=t.eye(2)).log_prob(
        t.tensor([[1.0, 2.0], [2.0, 1.0]])
    ),
    "chi2": lambda t: t.distributions.Chi2(t.tensor([-1.0])),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_validation_errors(name, real_torch):
    check_error(ERRORS[name], real_torch)


def test_low_df_warns_as_pytorch(real_torch):
    for lib in (ac, real_torch):
        with pytest.warns(UserWarning, match="Low df values detected"):
            lib.distributions.Wishart(lib.tensor(1.5), covariance_matrix=lib.eye(2))
