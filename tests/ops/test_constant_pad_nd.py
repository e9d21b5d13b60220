"""torch.constant_pad_nd against real PyTorch where the OpInfo database does not look: its own
argument checks and texts (they differ from F.pad's), fill values cast to the input's dtype,
and crops."""

from __future__ import annotations

import pytest

import autograd_compat
from tests._helpers.torch_compare import assert_same, check_error


def _x(lib):
    return lib.arange(6.0).reshape(2, 3)


CASES = [
    lambda t: t.constant_pad_nd(_x(t), (1, -1), 2.5),
    lambda t: t.constant_pad_nd(_x(t), (-3, 0)),
    lambda t: t.constant_pad_nd(t.tensor([1, 2]), (1, 1), 2.7),
    lambda t: t.constant_pad_nd(t.tensor([1, 2], dtype=t.uint8), (1, 0), -1),
    lambda t: t.constant_pad_nd(_x(t), [0, 0, 1, 0], value=1 + 0j),
]
ERRORS = [
    lambda t: t.constant_pad_nd(_x(t), (1, 2, 3)),
    lambda t: t.constant_pad_nd(_x(t), (1, 1, 1, 1, 1, 1)),
    lambda t: t.constant_pad_nd(_x(t), (-2, -2)),
    lambda t: t.constant_pad_nd(_x(t), (1, 1), "a"),
    lambda t: t.constant_pad_nd(_x(t), (1.5, 1)),
    lambda t: t.constant_pad_nd(_x(t), (1, 1), 1e300),
    lambda t: t.constant_pad_nd(_x(t), (1, 1), 1 + 1j),
    lambda t: t.constant_pad_nd(_x(t).to(t.int8), (1, 1), 300),
]


@pytest.mark.parametrize("index", range(len(CASES)))
def test_values_match_torch(index, real_torch):
    assert_same(CASES[index](autograd_compat), CASES[index](real_torch))


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index, real_torch):
    check_error(ERRORS[index], real_torch)
