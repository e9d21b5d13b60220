"""torch.hash_tensor against real PyTorch: the xor of the elements' 64-bit patterns (floats
widened to float64 with NaN and -0.0, integers sign-extended, bool), dims and keepdim, the
empty cases and its errors."""

from __future__ import annotations

import pytest

import autograd_compat
from tests._helpers.torch_compare import assert_same, check_error


def _a(lib):
    return lib.tensor([[1.5, -2.0, 3.0], [0.0, -0.0, float("nan")]])


CASES = [
    lambda t: t.hash_tensor(_a(t)),
    lambda t: t.hash_tensor(_a(t), -1),
    lambda t: t.hash_tensor(_a(t), [0], keepdim=True),
    lambda t: _a(t).hash_tensor(dim=None),
    lambda t: t.hash_tensor(t.tensor([1, 2, -3], dtype=t.int8)),
    lambda t: t.hash_tensor(t.tensor([True, False, True])),
    lambda t: t.hash_tensor(t.tensor([1.5, 2.0], dtype=t.float16)),
    lambda t: t.hash_tensor(t.empty(0, 3), 1),
    lambda t: t.hash_tensor(t.tensor(2.5), 0, keepdim=True),
]
ERRORS = [
    lambda t: t.hash_tensor(_a(t), mode=1),
    lambda t: t.hash_tensor(t.tensor([1j])),
    lambda t: t.hash_tensor(t.empty(0)),
    lambda t: t.hash_tensor(t.empty(2, 0, 0), (2, 1)),
    lambda t: t.hash_tensor(_a(t), (0, 0)),
]


@pytest.mark.parametrize("index", range(len(CASES)))
def test_values_match_torch(index, real_torch):
    assert_same(CASES[index](autograd_compat), CASES[index](real_torch))


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index, real_torch):
    check_error(ERRORS[index], real_torch)
