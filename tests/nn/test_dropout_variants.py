"""Dropout3d, alpha dropout, feature alpha dropout and RReLU: PyTorch's formulas checked on
both libraries, training draws against real PyTorch after the same seed (bit for bit),
evaluation mode against real PyTorch, grad_fn names, reprs and errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import autograd_compat
from tests._helpers.torch_compare import arr, check_case, check_error

X = arr((2, 3, 2, 2, 2))
ALPHA = 1.7580993408473766


def _alpha_constants(p: float) -> tuple[float, float]:
    """(scale a, the value of a dropped element) of alpha dropout with probability p."""
    a = 1.0 / math.sqrt((ALPHA * ALPHA * p + 1) * (1 - p))
    return a, a * ALPHA * (p - 1)


@pytest.fixture(params=["ours", "torch"])
def lib(request, real_torch):
    return autograd_compat if request.param == "ours" else real_torch


@pytest.mark.parametrize("feature", [False, True])
def test_alpha_dropout_formula(lib, feature):
    lib.manual_seed(0)  # both kept and dropped elements (real torch is not seeded per test)
    p = 0.4
    x = lib.tensor(X, requires_grad=True)
    fn = lib.nn.functional.feature_alpha_dropout if feature else lib.nn.functional.alpha_dropout
    y = fn(x, p, True)
    assert type(y.grad_fn).__name__ == "AddBackward0"
    a, dropped_value = _alpha_constants(p)
    out, xs = y.detach().numpy(), X
    kept = np.isclose(out, a * xs + a * ALPHA * p)
    dropped = np.isclose(out, dropped_value)
    assert (kept | dropped).all() and kept.any() and dropped.any()
    if feature:  # one decision per (sample, channel)
        per_channel = kept.reshape(2, 3, -1)
        assert (per_channel.all(-1) | (~per_channel).all(-1)).all()
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.where(kept, a, 0.0))


# Training draws after `manual_seed`: the values, the gradients, grad_fn's name and the draw
# after (the generator advanced as far). Zeros, a negative zero and a NaN among the inputs
# (rrelu draws a slope for each element <= 0: zeros included, NaN not).
SPECIAL = X.copy()
SPECIAL.flat[:4] = [0.0, -0.0, np.nan, -1e-30]
DRAWS = {
    "alpha_dropout": lambda t, x: t.nn.functional.alpha_dropout(x, 0.3, True),
    "feature_alpha_dropout": lambda t, x: t.nn.functional.feature_alpha_dropout(x, 0.3, True),
    "alpha_dropout_inplace": lambda t, x: t.nn.functional.alpha_dropout(x * 1, 0.3, True, True),
    "AlphaDropout": lambda t, x: t.nn.AlphaDropout(0.2)(x),
    "FeatureAlphaDropout": lambda t, x: t.nn.FeatureAlphaDropout(0.6)(x),
    "rrelu": lambda t, x: t.nn.functional.rrelu(x, 0.1, 0.4, True),
    "rrelu_inplace": lambda t, x: t.nn.functional.rrelu(x * 1, training=True, inplace=True),
    "RReLU": lambda t, x: t.nn.RReLU()(x),
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize("name", sorted(DRAWS))
def test_training_draws_match_torch(name, dtype, real_torch):
    def run(lib):
        lib.manual_seed(11)
        x = lib.tensor(SPECIAL, dtype=getattr(lib, dtype), requires_grad=True)
        y = DRAWS[name](lib, x)
        y.backward(lib.ones_like(y))
        values = [t.detach().double().numpy() for t in (y, x.grad)]
        return *values, type(y.grad_fn).__name__, lib.rand(2).numpy()

    ours, theirs = run(autograd_compat), run(real_torch)
    for mine, expected in zip(ours, theirs):
        np.testing.assert_array_equal(mine, expected)


def test_dropout3d_drops_whole_channels(lib):
    x = lib.tensor(X, requires_grad=True)
    y = lib.nn.functional.dropout3d(x, 0.5)
    ratio = (y.detach().numpy() / X).reshape(2, 3, -1)
    assert np.isin(np.round(ratio, 12), [0.0, 2.0]).all()
    assert (ratio == ratio[..., :1]).all()
    assert type(y.grad_fn).__name__ == "MulBackward0"
    unbatched = lib.nn.Dropout3d(0.5)(lib.tensor(X[0]))
    ratio = (unbatched.numpy() / X[0]).reshape(3, -1)
    assert (ratio == ratio[:, :1]).all()


def test_rrelu_training_slopes(lib):
    x = lib.tensor(X, requires_grad=True)
    y = lib.nn.functional.rrelu(x, 0.1, 0.3, training=True)
    assert type(y.grad_fn).__name__ == "RreluWithNoiseBackward0"
    out = y.detach().numpy()
    positive = X > 0
    np.testing.assert_array_equal(out[positive], X[positive])
    slopes = out[~positive] / X[~positive]
    assert ((slopes >= 0.1) & (slopes <= 0.3)).all() and np.unique(slopes).size > 1
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.where(positive, 1.0, out / X))


def test_identity_cases(lib):
    x = lib.tensor(X)
    assert lib.nn.functional.alpha_dropout(x, 0.5) is x  # training defaults to False
    assert lib.nn.functional.feature_alpha_dropout(x, 0.0, True) is x
    assert lib.nn.functional.dropout3d(x, 0.5, training=False) is x
    zeros = lib.nn.functional.alpha_dropout(x.requires_grad_(), 1.0, True)
    assert type(zeros.grad_fn).__name__ == "MulBackward0" and not zeros.detach().numpy().any()


CASES = {
    "rrelu_eval": lambda t, x: t.nn.functional.rrelu(x, 0.2, 0.4),
    "rrelu_module_eval": lambda t, x: t.nn.RReLU().eval()(x),
    "torch_rrelu": lambda t, x: t.rrelu(x),
    "rrelu_inplace": lambda t, x: t.rrelu_(x * 1.0),
    "alpha_dropout_module_eval": lambda t, x: t.nn.AlphaDropout(0.3).eval()(x) * 2,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_eval_matches_torch(name, real_torch):
    check_case(CASES[name], [X], real_torch)


def test_reprs(real_torch):
    def reprs(nn):
        modules = (
            nn.RReLU(),
            nn.RReLU(0.1, 0.3, True),
            nn.AlphaDropout(0.2),
            nn.FeatureAlphaDropout(),
            nn.Dropout3d(0.1, True),
        )
        return [repr(m) for m in modules]

    assert reprs(autograd_compat.nn) == reprs(real_torch.nn)


ERRORS = [
    lambda t: t.nn.functional.feature_alpha_dropout(t.zeros(3), 0.5, True),
    lambda t: t.nn.functional.alpha_dropout(t.zeros(3), 1.5),
    lambda t: t.nn.functional.alpha_dropout(t.zeros(3, dtype=t.long), 0.5, True),
    lambda t: t.nn.functional.rrelu(t.zeros(3), 0.5, 0.1, True),
    lambda t: t.nn.functional.rrelu(t.zeros(3, dtype=t.long)),
    lambda t: t.nn.functional.rrelu(t.zeros(3, dtype=t.long), training=True),
    lambda t: t.nn.functional.rrelu(t.zeros(3, dtype=t.float16), training=True),
    lambda t: t.nn.functional.dropout3d(t.zeros(2, 2, 2, 2), -0.1),
    lambda t: t.nn.AlphaDropout(2.0),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index, real_torch):
    check_error(ERRORS[index], real_torch)


def test_dropout3d_warns_on_other_ranks(lib):
    with pytest.warns(UserWarning, match="Received a 3-D input to dropout3d"):
        lib.nn.functional.dropout3d(lib.zeros(2, 2, 2), 0.5)
