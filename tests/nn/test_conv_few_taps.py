"""Convolutions with few taps (a CNN's first layer) sum strided slices in their forward: values,
first and second derivatives and forward-mode tangents against real PyTorch and against
`lax.conv_general_dilated`, whose derivatives they keep."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import autograd_compat as ac
from autograd_compat._ops.nn import conv

# (input shape, weight shape, keyword arguments): every case has at most FEW_TAPS taps
CASES = [
    ((4, 1, 12, 12), (8, 1, 3, 3), {}),
    ((2, 3, 11, 9), (5, 3, 3, 3), {"stride": 2, "padding": 1}),
    ((2, 3, 10, 10), (4, 3, 3, 3), {"dilation": 2, "padding": (2, 1)}),
    ((2, 2, 15), (3, 2, 5), {"stride": 3}),
    ((1, 1, 5, 6, 7), (2, 1, 3, 3, 3), {"padding": 1}),
    ((3, 9, 9), (4, 3, 3, 3), {"padding": "same"}),
]


def _arrays(x_shape, w_shape, dtype=np.float32):
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    return x.astype(dtype), w.astype(dtype), rng.standard_normal(w_shape[0]).astype(dtype)


def _derivatives(lib, x, w, b, kwargs):
    """The output, d(sum y^2)/dx and /dw, and the derivative of sum (d/dw)^2 in x."""
    conv_nd = getattr(lib.nn.functional, f"conv{len(w.shape) - 2}d")
    tx, tw, tb = (lib.tensor(a, requires_grad=True) for a in (x, w, b))
    y = conv_nd(tx, tw, tb, **kwargs)
    gx, gw = lib.autograd.grad((y * y).sum(), (tx, tw), create_graph=True)
    (hx,) = lib.autograd.grad((gw * gw).sum(), (tx,))
    return [t.detach().numpy() for t in (y, gx, gw, hx)]


@pytest.mark.parametrize("x_shape,w_shape,kwargs", CASES)
def test_values_and_derivatives_match_pytorch(x_shape, w_shape, kwargs, real_torch):
    x, w, b = _arrays(x_shape, w_shape)
    assert w_shape[1] * np.prod(w_shape[2:]) <= conv.FEW_TAPS
    for ours, theirs in zip(
        _derivatives(ac, x, w, b, kwargs), _derivatives(real_torch, x, w, b, kwargs)
    ):
        np.testing.assert_allclose(ours, theirs, rtol=2e-4, atol=2e-5 * np.abs(theirs).max())


@pytest.mark.parametrize("x_shape,w_shape,kwargs", CASES[:3])
def test_same_as_the_convolution_op_in_float64(x_shape, w_shape, kwargs, monkeypatch):
    """With the slices and with `lax.conv_general_dilated` (FEW_TAPS = 0), float64 results and
    derivatives agree to rounding."""
    x, w, b = _arrays(x_shape, w_shape, np.float64)
    summed = _derivatives(ac, x, w, b, kwargs)
    monkeypatch.setattr(conv, "FEW_TAPS", 0)
    for a, c in zip(summed, _derivatives(ac, x, w, b, kwargs)):
        np.testing.assert_allclose(a, c, rtol=1e-12, atol=1e-12 * np.abs(c).max())


def test_forward_mode_and_jax_transforms():
    """torch.func.jvp tangents and jax.jvp of the pure function are the convolution's."""
    x, w, _ = _arrays((2, 1, 6, 6), (3, 1, 3, 3))
    t = np.ones_like(x)
    _, tangent = ac.func.jvp(
        lambda x: ac.nn.functional.conv2d(x, ac.tensor(w)), (ac.tensor(x),), (ac.tensor(t),)
    )
    geometry = tuple(
        sorted(
            {
                "window_strides": (1, 1),
                "padding": ((0, 0), (0, 0)),
                "rhs_dilation": (1, 1),
                "feature_group_count": 1,
            }.items()
        )
    )
    expected = conv._lax_conv(t, w, geometry)  # linear in x: the tangent is conv(t, w)
    np.testing.assert_allclose(tangent.numpy(), np.asarray(expected), rtol=1e-5, atol=1e-5)
    _, jax_tangent = jax.jvp(lambda x: conv._few_taps(x, w, geometry), (x,), (t,))
    np.testing.assert_allclose(np.asarray(jax_tangent), np.asarray(expected), rtol=1e-5, atol=1e-5)
