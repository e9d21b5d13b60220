"""bitwise_left_shift / bitwise_right_shift, the << and >> operators (reflected and in
place) against real PyTorch: values and dtypes at negative and oversized shift amounts,
unsigned and signed types, and the errors for float and bool."""

from __future__ import annotations

import numpy as np
import pytest

from tests._helpers.torch_compare import check_case, check_error

A = np.array([1, -8, 5, 3, -1, 7], np.int32)
B = np.array([1, 2, 40, -1, 31, 0], np.int32)

CASES = {
    "left": lambda t, a, b: t.bitwise_left_shift(a, b),
    "right": lambda t, a, b: t.bitwise_right_shift(a, b),
    "operators": lambda t, a, b: (a << b, a >> b, a << 2, a >> 1),
    "reflected": lambda t, a, b: (3 << b.abs(), 1024 >> b.abs()),
    "methods": lambda t, a, b: (a.bitwise_left_shift(b.long()), a.bitwise_right_shift(3)),
    "int64_wide": lambda t, a, b: (a.long() >> 70, a.long() << 63, a.long() << 64),
    "uint8": lambda t, a, b: (a.to(t.uint8) << 1, a.to(t.uint8) >> b.abs().to(t.uint8)),
    "bool_with_int": lambda t, a, b: (a > 0) << 2,
    "function_scalar_first": lambda t, a, b: t.bitwise_left_shift(2, b.abs()),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_shifts_match_torch(name, real_torch):
    check_case(CASES[name], [A, B], real_torch)


def test_in_place_shifts_match_torch(real_torch):
    def prog(t, a, b):
        x, y = a.clone(), a.clone()
        alias = x
        x <<= b.abs()
        y >>= 1
        z = a.clone()
        z.bitwise_left_shift_(1).bitwise_right_shift_(2)
        return alias, y, z

    check_case(prog, [A, B], real_torch)


ERRORS = [
    lambda t: t.tensor([1.5]) << 1,
    lambda t: t.tensor([1.5]) >> 1,
    lambda t: t.bitwise_left_shift(t.tensor([1.5]), 1),
    lambda t: t.tensor([True]) << t.tensor([True]),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index, real_torch):
    check_error(ERRORS[index], real_torch)
