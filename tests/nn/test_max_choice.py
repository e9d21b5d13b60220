"""Which element a max takes, against real PyTorch: a max pool (and an adaptive one) the first
of equal maxima, the last NaN, and the first element inside the input where a padded window
holds only -inf; a max bag of embeddings the bag's first row, replaced only by a strictly
greater one. Values, indices and gradients must be PyTorch's bit for bit: in 1, 2 and 3
dimensions with padding, strides, dilation and ceil_mode; bags with padding indices and empty
bags."""

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


def _assert_pytorchs(ours: tuple, theirs: tuple, names: tuple) -> None:
    """Each of our arrays equals PyTorch's, bit for bit: values, NaNs and signs of zeros."""
    for got, expected, what in zip(ours, theirs, names):
        np.testing.assert_array_equal(got, expected, err_msg=what)
        assert np.array_equal(np.signbit(got), np.signbit(expected)), what


def _pooled(module, data: np.ndarray, pool: str, *args, **kwargs):
    """A max pool's values, indices and input gradient (of the sum) in `module`."""
    x = module.tensor(data, requires_grad=True)
    y, indices = getattr(module.nn.functional, pool)(x, *args, return_indices=True, **kwargs)
    y.backward(module.ones_like(y))
    return y.detach().numpy(), indices.numpy(), x.grad.numpy()


@pytest.mark.parametrize("geometry", GEOMETRIES, ids=lambda g: "-".join(map(str, g.values())))
@pytest.mark.parametrize("nd", [1, 2, 3])
def test_max_pool_takes_what_pytorch_takes(nd, geometry, real_torch):
    data = np.random.RandomState(nd).choice(VALUES, size=(2, 3) + (7, 9, 6)[:nd])
    names = ("values", "indices", "gradient")
    pool = f"max_pool{nd}d"
    ours, theirs = (_pooled(m, data, pool, **geometry) for m in (torch, real_torch))
    _assert_pytorchs(ours, theirs, names)


@pytest.mark.parametrize("out", [(3, 4, 2), (1, 1, 1)], ids=["windows", "one window"])
@pytest.mark.parametrize("nd", [1, 2, 3])
def test_adaptive_max_pool_takes_what_pytorch_takes(nd, out, real_torch):
    data = np.random.RandomState(nd).choice(VALUES, size=(2, 3) + (7, 9, 6)[:nd])
    names = ("values", "indices", "gradient")
    pool = f"adaptive_max_pool{nd}d"
    ours, theirs = (_pooled(m, data, pool, out[:nd]) for m in (torch, real_torch))
    _assert_pytorchs(ours, theirs, names)


@pytest.mark.parametrize("padding_idx", [None, 2])
def test_embedding_bag_max_takes_what_pytorch_takes(padding_idx, real_torch):
    rng = np.random.RandomState(3)
    weight = rng.choice(VALUES, size=(7, 4))
    indices = rng.randint(0, 7, size=(12,))
    offsets = np.array([0, 3, 3, 7])  # (the second bag is empty)

    def bag(module):
        w = module.tensor(weight, requires_grad=True)
        y = module.nn.functional.embedding_bag(
            module.tensor(indices), w, module.tensor(offsets), mode="max", padding_idx=padding_idx
        )
        (g,) = module.autograd.grad(y.sum(), w)
        return y.detach().numpy(), g.numpy()

    _assert_pytorchs(bag(torch), bag(real_torch), ("values", "gradient"))
