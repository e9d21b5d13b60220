"""torch.histogramdd against real PyTorch where the OpInfo samples do not reach: ranges,
single-valued and empty inputs, batched points, and the argument errors."""

from __future__ import annotations

import pytest

from tests._helpers.torch_compare import arr, check_case, check_error

POINTS = arr((2, 5, 3))

CASES = {
    "range_density": lambda t, x: t.histogramdd(
        x, [2, 3, 1], range=[-1.0, 1.0, 0.0, 2.0, -3.0, 3.0], density=True
    ),
    "single_value": lambda t, x: t.histogramdd(x * 0 + 1, 2),
    "empty": lambda t, x: t.histogramdd(x[:0], 3),
    "weighted": lambda t, x: t.histogramdd(x, 2, weight=x[..., 0].abs()),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_histogramdd_matches_torch(name, real_torch):
    check_case(CASES[name], [POINTS], real_torch, grads=False)


ERRORS = [
    lambda t: t.histogramdd(t.zeros(5, 2), [1, 2, 3]),
    lambda t: t.histogramdd(t.zeros(5, 2), [2, 0]),
    lambda t: t.histogramdd(t.zeros(5, 2), 3, range=[0, 1]),
    lambda t: t.histogramdd(t.zeros(5, 2), 3, range=[0, 1, 1, 0]),
    lambda t: t.histogramdd(t.zeros(5, 2), 3, range=[0, 1, 0, float("inf")]),
    lambda t: t.histogramdd(t.zeros(5, 2).double(), [t.ones(3), t.ones(3)]),
    lambda t: t.histogramdd(t.zeros(5, 2), [t.ones(3), t.ones(3, 1)]),
    lambda t: t.histogramdd(t.zeros(5, 2), [t.ones(1), t.ones(3)]),
    lambda t: t.histogramdd(t.zeros(5, 2, dtype=t.int64), 3),
    lambda t: t.histogramdd(t.zeros(()), 3),
    lambda t: t.histogramdd(t.zeros(5, 2), 3, weight=t.ones(4)),
    lambda t: t.histogramdd(t.zeros(5, 2), 3, weight=t.ones(5).double()),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index, real_torch):
    check_error(ERRORS[index], real_torch)


def test_histogram_of_no_values_spans_zero_to_one(real_torch):
    check_case(lambda t, x: t.histogram(x[:0], 2), [POINTS[0, 0]], real_torch, grads=False)
