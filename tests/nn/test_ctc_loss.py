"""F.ctc_loss and nn.CTCLoss against real PyTorch: values, grad_fn names and float64
gradients (PyTorch's, which add exp(log_probs) to the derivative) for padded and
concatenated targets, repeated labels, shorter inputs, each reduction, zero_infinity,
unbatched input, and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat
from tests._helpers.torch_compare import arr, check_case, check_error

LOGITS = arr((6, 2, 4))
TARGETS = np.array([[1, 2, 2], [3, 1, 0]])
INPUT_LENGTHS = np.array([6, 5])
TARGET_LENGTHS = np.array([3, 2])


def _lp(t, x):
    return x.log_softmax(-1)


CASES = {
    "mean": lambda t, x, y, i, j: t.nn.functional.ctc_loss(_lp(t, x), y, i, j),
    "sum_blank": lambda t, x, y, i, j: t.nn.functional.ctc_loss(
        _lp(t, x), (y + 1) % 4, i, j, blank=0, reduction="sum"
    ),
    "none_raw_log_probs": lambda t, x, y, i, j: t.nn.functional.ctc_loss(
        x, y, i, j, reduction="none"
    ),
    "concatenated": lambda t, x, y, i, j: t.nn.CTCLoss(reduction="none")(
        _lp(t, x), t.tensor([1, 2, 2, 3, 1]), i, j
    ),
    "tuple_lengths_blank_last": lambda t, x, y, i, j: t.nn.CTCLoss(blank=3)(
        _lp(t, x), y.clamp_max(2), (6, 4), (3, 1)
    ),
    "impossible_zero_infinity": lambda t, x, y, i, j: t.nn.CTCLoss(
        reduction="sum", zero_infinity=True
    )(_lp(t, x), t.tensor([[1, 1, 1], [2, 3, 2]]), (3, 6), (3, 3)),
    "unbatched": lambda t, x, y, i, j: t.nn.functional.ctc_loss(_lp(t, x[:, 0]), y[0], i[0], j[0]),
    "torch_function_enum": lambda t, x, y, i, j: (
        t.ctc_loss(_lp(t, x), y, i, j),
        t.ctc_loss(_lp(t, x), y, [6, 5], [3, 2], 0, 2),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_ctc_matches_torch(name, real_torch):
    arrays = [LOGITS, TARGETS, INPUT_LENGTHS, TARGET_LENGTHS]
    check_case(CASES[name], arrays, real_torch, finite_differences=name == "mean")


def test_module_repr(real_torch):
    for lib in (autograd_compat, real_torch):
        assert repr(lib.nn.CTCLoss(blank=1, zero_infinity=True)) == "CTCLoss()"


ERRORS = [
    lambda t: t.nn.functional.ctc_loss(
        t.zeros(6, 2, 4), t.zeros(2, 3, dtype=t.long), t.tensor([6, 5]), t.tensor([3, 4])
    ),
    lambda t: t.nn.functional.ctc_loss(
        t.zeros(6, 2, 4), t.zeros(2, 3, dtype=t.long), t.tensor([7, 5]), t.tensor([3, 2])
    ),
    lambda t: t.nn.functional.ctc_loss(
        t.zeros(6, 2, 4), t.zeros(2, 3, dtype=t.long), t.tensor([6, 5]), t.tensor([3, 2]), 4
    ),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index, real_torch):
    check_error(ERRORS[index], real_torch)
