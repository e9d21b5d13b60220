"""torch._unsafe_masked_index and torch._unsafe_masked_index_put_accumulate against real
PyTorch where the OpInfo replay does not reach: negative and out-of-range indices, a non-bool
mask, integer inputs, empty inputs and the errors."""

from __future__ import annotations

import numpy as np
import pytest

from tests._helpers.torch_compare import arr, check_case, check_error

X = arr((5,))
INDEX = np.array([-2, -7, 9])


CASES = {
    "clamped": lambda t, x, i: t._unsafe_masked_index(x, t.tensor([1, 0, 1]), [i], 7),
    "integer": lambda t, x, i: t._unsafe_masked_index((x * 9).int(), t.tensor(True), [i], 1.5),
    "put_clamped": lambda t, x, i: t._unsafe_masked_index_put_accumulate(
        x, t.tensor([True, False, True]), [i], x[:3] * 2
    ),
    "empty": lambda t, x, i: t._unsafe_masked_index(x.reshape(5, 1)[:, :0], t.tensor(True), [i], 2),
    "put_empty": lambda t, x, i: t._unsafe_masked_index_put_accumulate(
        x[:0], t.tensor(True), [i], x[:3]
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_masked_index_matches_torch(name, real_torch):
    check_case(CASES[name], [X, INDEX], real_torch)


ERRORS = [
    lambda t: t._unsafe_masked_index(t.ones(5), t.tensor(True), [t.tensor([1.0])], 0.0),
    lambda t: t._unsafe_masked_index(t.ones(5), t.tensor(True), [t.tensor([True])], 0.0),
    lambda t: t._unsafe_masked_index(t.ones(5), t.tensor(True), [t.tensor([1])] * 2, 0.0),
    lambda t: t._unsafe_masked_index(t.ones(5), t.tensor(True), [None], 0.0),
    lambda t: t._unsafe_masked_index_put_accumulate(
        t.ones(5), t.tensor(True), [t.tensor([1])], t.ones(1, dtype=t.float64)
    ),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index, real_torch):
    check_error(ERRORS[index], real_torch)
