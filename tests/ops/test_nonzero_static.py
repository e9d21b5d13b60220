"""torch.nonzero_static against real PyTorch where the OpInfo database does not look: fill
rows of an empty input, NaN and -0.0, 0-d inputs, and its argument errors."""

from __future__ import annotations

import pytest

import autograd_compat
from tests._helpers.torch_compare import assert_same, check_error

CASES = [
    lambda t: t.nonzero_static(t.zeros(2, 0, 3), size=2, fill_value=-5),
    lambda t: t.nonzero_static(t.tensor([float("nan"), 0.0, -0.0, 1.0]), size=3),
    lambda t: t.nonzero_static(t.tensor(2.0), size=3),
    lambda t: t.tensor([[0, 1], [1, 1]]).nonzero_static(size=2),
]
ERRORS = [
    lambda t: t.nonzero_static(t.ones(3), size=-1),
    lambda t: t.nonzero_static(t.ones(3), size=2.5),
    lambda t: t.nonzero_static(t.ones(3), size=True),
    lambda t: t.nonzero_static(t.ones(3), size=2, fill_value=1.5),
]


@pytest.mark.parametrize("index", range(len(CASES)))
def test_values_match_torch(index, real_torch):
    assert_same(CASES[index](autograd_compat), CASES[index](real_torch))


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index, real_torch):
    check_error(ERRORS[index], real_torch)
