"""Which element a max pool (and an adaptive one) takes, against real PyTorch: the first of
equal maxima, the last NaN, and the first element inside the input where a padded window holds
only -inf. Values, indices and gradients must be PyTorch's bit for bit, in 1, 2 and 3
dimensions, with padding, strides, dilation and ceil_mode."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat as torch

NAN = float("nan")
# Few distinct values, so windows hold ties, several NaNs, signed zeros and all -inf.
VALUES = np.array([1.0, 2.0, NAN, -0.0, 0.0, -np.inf, 3.0], np.float32)
GEOMETRIES = [
    dict(kernel_size=2),
    dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=2, stride=1, padding=1, dilation=2),
]


def _pooled(module, data: np.ndarray, nd: int, geometry: dict):
    x = module.tensor(data, requires_grad=True)
    pool = getattr(module.nn.functional, f"max_pool{nd}d")
    y, indices = pool(x, return_indices=True, **geometry)
    y.backward(module.ones_like(y))
    return y.detach().numpy(), indices.numpy(), x.grad.numpy()


@pytest.mark.parametrize("geometry", GEOMETRIES, ids=lambda g: "-".join(map(str, g.values())))
@pytest.mark.parametrize("nd", [1, 2, 3])
def test_max_pool_takes_what_pytorch_takes(nd, geometry, real_torch):
    data = np.random.RandomState(nd).choice(VALUES, size=(2, 3) + (7, 9, 6)[:nd])
    ours = _pooled(torch, data, nd, geometry)
    theirs = _pooled(real_torch, data, nd, geometry)
    for got, expected, what in zip(ours, theirs, ("values", "indices", "gradient")):
        np.testing.assert_array_equal(got, expected, err_msg=what)
        assert np.array_equal(np.signbit(got), np.signbit(expected)), what


def _adaptive_pooled(module, data: np.ndarray, nd: int, out: tuple):
    x = module.tensor(data, requires_grad=True)
    pool = getattr(module.nn.functional, f"adaptive_max_pool{nd}d")
    y, indices = pool(x, out[:nd], return_indices=True)
    y.backward(module.ones_like(y))
    return y.detach().numpy(), indices.numpy(), x.grad.numpy()


@pytest.mark.parametrize("out", [(3, 4, 2), (1, 1, 1)], ids=["windows", "one window"])
@pytest.mark.parametrize("nd", [1, 2, 3])
def test_adaptive_max_pool_takes_what_pytorch_takes(nd, out, real_torch):
    data = np.random.RandomState(nd).choice(VALUES, size=(2, 3) + (7, 9, 6)[:nd])
    ours = _adaptive_pooled(torch, data, nd, out)
    theirs = _adaptive_pooled(real_torch, data, nd, out)
    for got, expected, what in zip(ours, theirs, ("values", "indices", "gradient")):
        np.testing.assert_array_equal(got, expected, err_msg=what)
