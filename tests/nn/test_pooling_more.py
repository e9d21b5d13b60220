"""3-D adaptive pools, max unpooling and LP pooling against real PyTorch: values, grad_fn
names, float64 gradients, module reprs and errors."""

from __future__ import annotations

import pytest

import autograd_compat
from tests._helpers.torch_compare import arr, check_case, check_error

X3 = arr((1, 2, 4, 4, 6))
X2 = arr((2, 2, 4, 4))
X1 = arr((2, 3, 6))


def _pooled(t, f, x, **kwargs):
    """A max pool's values and indices, the input of an unpooling."""
    return f(x, 2, return_indices=True, **kwargs)


CASES = {
    "adaptive_avg_pool3d": (lambda t, x: t.nn.functional.adaptive_avg_pool3d(x, (2, 3, None)), X3),
    "adaptive_avg_pool3d_4d": (lambda t, x: t.nn.functional.adaptive_avg_pool3d(x[0], 3), X3),
    "adaptive_max_pool3d": (
        lambda t, x: t.nn.functional.adaptive_max_pool3d(x, (3, 2, 4), return_indices=True),
        X3,
    ),
    "adaptive_max_pool3d_module": (lambda t, x: t.nn.AdaptiveMaxPool3d(2)(x[0]), X3),
    "adaptive_avg_pool3d_module": (lambda t, x: t.nn.AdaptiveAvgPool3d((1, None, 2))(x), X3),
    "max_unpool2d": (
        lambda t, x: t.nn.functional.max_unpool2d(*_pooled(t, t.nn.functional.max_pool2d, x), 2),
        X2,
    ),
    "max_unpool2d_output_size": (
        lambda t, x: t.nn.MaxUnpool2d(2)(
            *_pooled(t, t.nn.functional.max_pool2d, x), output_size=(2, 2, 5, 5)
        ),
        X2,
    ),
    "max_unpool2d_3d_input": (
        lambda t, x: t.nn.functional.max_unpool2d(*_pooled(t, t.nn.functional.max_pool2d, x[0]), 2),
        X2,
    ),
    "max_unpool1d": (
        lambda t, x: t.nn.MaxUnpool1d(2)(*_pooled(t, t.nn.functional.max_pool1d, x)),
        X1,
    ),
    # overlapping windows repeat indices: each input reads its position's output gradient
    # (PyTorch's rule, which finite differences do not follow)
    "max_unpool1d_stride": (
        lambda t, x: t.nn.functional.max_unpool1d(
            *t.nn.functional.max_pool1d(x, 3, 1, return_indices=True), 3, 1
        ),
        X1,
        {"finite_differences": False},
    ),
    "max_unpool3d": (
        lambda t, x: t.nn.MaxUnpool3d(2)(*_pooled(t, t.nn.functional.max_pool3d, x)),
        X3,
    ),
    "lp_pool1d": (lambda t, x: t.nn.functional.lp_pool1d(x.abs(), 2.0, 2), X1),
    "lp_pool1d_module": (lambda t, x: t.nn.LPPool1d(1.5, 3, 2, ceil_mode=True)(x.abs() + 1), X1),
    "lp_pool2d": (lambda t, x: t.nn.LPPool2d(2, 2)(x), X2),
    "lp_pool2d_stride": (lambda t, x: t.nn.functional.lp_pool2d(x.abs(), 3, (2, 3), 1), X2),
    "lp_pool2d_inf": (lambda t, x: t.nn.functional.lp_pool2d(x, float("inf"), 2), X2),
    "lp_pool3d": (lambda t, x: t.nn.LPPool3d(2, 2)(x), X3),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name, real_torch):
    fn, x, *options = CASES[name]
    check_case(fn, [x], real_torch, **dict(*options))


def test_reprs(real_torch):
    def reprs(nn):
        return [
            repr(m)
            for m in (
                nn.AdaptiveAvgPool3d(2),
                nn.AdaptiveMaxPool3d((1, None, 2), True),
                nn.MaxUnpool1d(3, 2, 1),
                nn.MaxUnpool2d(2),
                nn.MaxUnpool3d(2),
                nn.LPPool1d(1.5, 2, 1, True),
                nn.LPPool2d(2, 3),
                nn.LPPool3d(2, 2),
            )
        ]

    assert reprs(autograd_compat.nn) == reprs(real_torch.nn)


def _unpool(t, **changes):
    y, i = t.nn.functional.max_pool2d(t.arange(32.0).view(2, 1, 4, 4), 2, return_indices=True)
    args = dict(input=y, indices=i, kernel_size=2) | changes
    return t.nn.functional.max_unpool2d(**args)


ERRORS = [
    lambda t: _unpool(t, indices=t.zeros(2, 1, 2, 2)),
    lambda t: _unpool(t, indices=t.full((2, 1, 2, 2), 100)),
    lambda t: _unpool(t, indices=t.zeros(2, 1, 2, 1, dtype=t.long)),
    lambda t: _unpool(t, output_size=(20, 20)),
    lambda t: _unpool(t, output_size=(4,)),
    lambda t: _unpool(t, input=t.zeros(2), indices=t.zeros(2, dtype=t.long)),
    lambda t: t.nn.functional.max_unpool3d(t.zeros(1, 2, 2), t.zeros(1, 2, 2, dtype=t.long), 2),
    lambda t: t.nn.functional.adaptive_avg_pool3d(t.zeros(2, 3, 4), 2),
    lambda t: t.nn.functional.adaptive_max_pool3d(t.zeros(2, 3, 4), 2),
    lambda t: t.nn.functional.adaptive_max_pool3d(t.zeros(1, 2, 3, 4), (2, 2)),
    lambda t: t.nn.functional.adaptive_avg_pool3d(t.zeros(1, 2, 3, 4), (2, 2)),
    lambda t: t.nn.functional.adaptive_max_pool3d(t.zeros(1, 2, 3, 4, dtype=t.long), 2),
    lambda t: t.nn.functional.adaptive_max_pool3d(t.zeros(1, 0, 2, 2, 2), 2),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index, real_torch):
    check_error(ERRORS[index], real_torch)
