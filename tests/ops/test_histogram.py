"""torch.histogram (and Tensor.histogram) against real PyTorch: counts and edges for a bin
count (the data's range, a given range, a single value), given edges, weights, density,
both float dtypes, and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

from tests._helpers.torch_compare import check_case, check_error

X = np.array([1.0, 2.0, 1.0, 4.0, 2.5, 3.0, -1.0, 7.0])

CASES = {
    "bins": lambda t, x: t.histogram(x, 3),
    "range": lambda t, x: t.histogram(x, 3, range=(0.0, 3.0)),
    "single_value": lambda t, x: t.histogram(x[:1].expand(3), 2),
    "edges_weight_density": lambda t, x: t.histogram(
        x, t.tensor([0.0, 1.5, 2.5, 4.0]), weight=t.ones(8) * 2, density=True
    ),
    "float64_density": lambda t, x: t.histogram(x.double(), bins=4, density=True),
    "method": lambda t, x: x.histogram(2, range=(1.0, 3.0)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_histogram_matches_torch(name, real_torch):
    check_case(CASES[name], [X.astype(np.float32)], real_torch, grads=False)


ERRORS = [
    lambda t: t.histogram(t.tensor([1, 2]), 3),
    lambda t: t.histogram(t.ones(3), 0),
    lambda t: t.histogram(t.ones(3), 3, range=(3.0, 1.0)),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index, real_torch):
    check_error(ERRORS[index], real_torch)
