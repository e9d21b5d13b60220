"""torch.empty_permuted against real PyTorch: the strides its physical layout gives, a leaf
that requires grad when asked, and its argument errors (the database compares shapes only)."""

from __future__ import annotations

import pytest

import autograd_compat
from tests._helpers.torch_compare import assert_same, check_error


def _described(lib, size, layout, **kwargs):
    x = lib.empty_permuted(size, layout, **kwargs)
    return [tuple(x.shape), x.stride(), x.dtype, x.is_leaf, x.requires_grad, x.is_contiguous()]


CASES = [
    ((2, 3, 5, 7), (0, 2, 3, 1), {"requires_grad": True}),
    ((), (), {}),
    ((1, 0, 5, 1), (3, 1, 0, 2), {}),
    ([2, 3], [1, 0], {"dtype": "int32"}),
]
ERRORS = [
    lambda t: t.empty_permuted((2,), (0, 1)),
    lambda t: t.empty_permuted((2,), (3,)),
    lambda t: t.empty_permuted((2, 3), (0, 0)),
    lambda t: t.empty_permuted((2, 3), (0, -1)),
    lambda t: t.empty_permuted((2, -1), (1, 0)),
    lambda t: t.empty_permuted((2, 3), (1, 0), dtype=t.int64, requires_grad=True),
]


@pytest.mark.parametrize(("size", "layout", "kwargs"), CASES)
def test_layout_matches_torch(size, layout, kwargs, real_torch):
    def run(lib):
        given = {k: getattr(lib, v) if k == "dtype" else v for k, v in kwargs.items()}
        return _described(lib, size, layout, **given)

    assert_same(run(autograd_compat), run(real_torch))


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index, real_torch):
    check_error(ERRORS[index], real_torch)
