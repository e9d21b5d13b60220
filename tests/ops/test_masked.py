"""torch.masked reductions and normalizations against real PyTorch: values, dtypes, grad_fn
names and float64 gradients with full, broadcast and absent masks, rows with nothing kept,
and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

from tests._helpers.torch_compare import arr, check_case, check_error

X = arr((3, 4))
MASK = np.array(
    [[True, False, True, True], [False, False, False, False], [True, True, False, True]]
)
COLUMNS = np.array([True, False, True, True])

CASES = {
    "sum": lambda t, x, m: t.masked.sum(x, 1, mask=m),
    "sum_all_keepdim": lambda t, x, m: t.masked.sum(x, keepdim=True, mask=m),
    "sum_no_mask": lambda t, x, m: t.masked.sum(x, (0, 1)),
    "prod": lambda t, x, m: t.masked.prod(x, 1, mask=m),
    "amax": lambda t, x, m: t.masked.amax(x, 1, mask=m),
    "amin_keepdim": lambda t, x, m: t.masked.amin(x, 0, keepdim=True, mask=m),
    "argmax": lambda t, x, m: t.masked.argmax(x, 1, mask=m),
    "argmin": lambda t, x, m: t.masked.argmin(x, 0, mask=m),
    "mean": lambda t, x, m: t.masked.mean(x, 1, mask=m),
    "mean_all": lambda t, x, m: t.masked.mean(x, mask=m),
    "norm": lambda t, x, m: t.masked.norm(x, 2.0, 1, mask=m),
    "norm_inf": lambda t, x, m: t.masked.norm(x, float("inf"), 0, mask=m),
    "var": lambda t, x, m: t.masked.var(x, 1, mask=m),
    "std_biased": lambda t, x, m: t.masked.std(x, 0, unbiased=False, mask=m),
    "var_correction": lambda t, x, m: t.masked.var(x, 1, correction=0, keepdim=True),
    "softmax": lambda t, x, m: t.masked.softmax(x, 1, mask=m),
    "log_softmax": lambda t, x, m: t.masked.log_softmax(x, -1, mask=m),
    "softmin": lambda t, x, m: t.masked.softmin(x, 0, mask=m),
    "normalize": lambda t, x, m: t.masked.normalize(x, 2.0, 1, mask=m),
    "logsumexp": lambda t, x, m: t.masked.logsumexp(x, 1, mask=m),
    "broadcast_mask": lambda t, x, m: t.masked.mean(x, 1, mask=m[0]),
    "cumsum": lambda t, x, m: t.masked.cumsum(x, 1, mask=m),
    "cumprod": lambda t, x, m: t.masked.cumprod(x, 0, mask=m),
    "median": lambda t, x, m: t.masked.median(x, 1, mask=m),
    "logaddexp": lambda t, x, m: t.masked.logaddexp(x, x.flip(0), input_mask=m, other_mask=m),
    "output_mask": lambda t, x, m: t.masked._output_mask(t.masked.norm, x, 2.0, 1, mask=m),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_masked_matches_torch(name, real_torch):
    mask = COLUMNS if name == "broadcast_mask" else MASK
    arrays = [X, mask[None] if name == "broadcast_mask" else mask]
    # a row with nothing kept gives inf or NaN, where finite differences say nothing
    check_case(CASES[name], arrays, real_torch, finite_differences=False)


def test_integer_sum_widens(real_torch):
    check_case(
        lambda t, x, m: (t.masked.sum(x.int(), 1, mask=m), t.masked.amax(x.int(), 1, mask=m)),
        [X * 10, MASK],
        real_torch,
    )


def test_integer_median(real_torch):
    check_case(
        lambda t, x, m: t.masked.median(x.long(), 0, keepdim=True, mask=m),
        [X * 10, MASK],
        real_torch,
    )


ERRORS = [
    lambda t: t.masked.mean(t.ones(2, 2, dtype=t.long), mask=t.ones(2, 2, dtype=t.bool)),
    lambda t: t.masked.median(t.ones(2, 2, dtype=t.long), 1, mask=t.eye(2, dtype=t.bool)[:, :1]),
    lambda t: t.masked._output_mask(1, t.ones(2), mask=t.ones(2, dtype=t.bool)),
    lambda t: t.masked._input_mask(t.ones(2)),
    lambda t: t.masked.sum(t.ones(2, 2), (0, 0), mask=t.ones(2, 2, dtype=t.bool)),
    lambda t: t.masked.sum(t.ones(2, 2), 2, mask=t.ones(2, 2, dtype=t.bool)),
    lambda t: t.masked.sum(t.ones(2), 0, mask=t.ones(2, 2, dtype=t.bool)),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index, real_torch):
    check_error(ERRORS[index], real_torch)
