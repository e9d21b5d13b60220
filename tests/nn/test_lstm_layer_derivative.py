"""An LSTM layer's written-out derivative (`rnn._lstm_layer_jvp`) against jax's own derivative
of the plain scan, in float64: values, gradients, second derivatives and forward-mode tangents,
in both directions, with and without biases."""

from __future__ import annotations

import jax
import numpy as np
import pytest

from autograd_compat._ops.nn import rnn

L, N, H = 4, 3, 5


def _inputs(bias: bool):
    rng = np.random.default_rng(0)
    xw, h0, c0 = (rng.standard_normal(s) for s in ((L, N, 4 * H), (N, H), (N, H)))
    w_hh = rng.standard_normal((4 * H, H)) * 0.5
    b_hh = rng.standard_normal(4 * H) if bias else None
    return xw, h0, c0, w_hh, b_hh


def _plain(xw, h0, c0, w_hh, b_hh, reverse):
    return rnn._lstm_layer.fun(xw, h0, c0, w_hh, b_hh, reverse)


def _loss(layer, reverse):
    def loss(xw, h0, c0, w_hh, b_hh):
        ys, h, c = layer(xw, h0, c0, w_hh, b_hh, reverse)
        return (ys**2).sum() + (h**3).sum() + (c * h).sum()

    return loss


def _second(f, argnums):
    """The gradient of the gradient's squared norm: a second derivative."""

    def norm(*args):
        return sum((g**2).sum() for g in jax.grad(f, argnums)(*args))

    return jax.grad(norm, argnums)


@pytest.mark.parametrize(
    "reverse,bias,order", [(False, True, jax.grad), (True, False, jax.grad), (False, True, _second)]
)
def test_derivatives_equal_the_plain_scans(reverse, bias, order):
    args = _inputs(bias)
    argnums = (0, 1, 2, 3, 4) if bias else (0, 1, 2, 3)
    ours = order(_loss(rnn._lstm_layer, reverse), argnums)(*args)
    plain = order(_loss(_plain, reverse), argnums)(*args)
    for a, b in zip(ours, plain):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-10, atol=1e-10)
    for a, b in zip(rnn._lstm_layer(*args, reverse), _plain(*args, reverse)):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_forward_mode_tangents_equal_the_plain_scans():
    args = _inputs(True)
    tangents = tuple(np.ones_like(a) for a in args)
    _, ours = jax.jvp(lambda *a: rnn._lstm_layer(*a, False), args, tangents)
    _, plain = jax.jvp(lambda *a: _plain(*a, False), args, tangents)
    for a, b in zip(ours, plain):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-10, atol=1e-10)
