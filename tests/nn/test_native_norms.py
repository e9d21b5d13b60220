"""torch.native_batch_norm, torch._native_batch_norm_legit, torch.native_layer_norm and
torch.native_group_norm against real PyTorch where the OpInfo replay does not reach: the
running statistics they update, a single value per channel, group norm of an input read as
(N, C, HxW) of another shape, and the errors."""

from __future__ import annotations

import pytest

import autograd_compat
from tests._helpers.torch_compare import arr, check_case, check_error

X = arr((3, 2, 4))
C = arr((2,))


def _running_statistics(t, x, w):
    mean, var = t.zeros(2, dtype=t.float64), t.ones(2, dtype=t.float64)
    out = t._native_batch_norm_legit(x, w, None, mean, var, True, 0.3, 1e-5)
    return out, mean, var


CASES = {
    "running_statistics": (_running_statistics, [X, C]),
    "one_value_per_channel": (
        lambda t, x: t.native_batch_norm(x[0, :, :1].T, None, None, None, None, True, 0.1, 1e-5),
        [X],
    ),
    "layer_norm_statistics": (lambda t, x: t.native_layer_norm(x, [4], None, None, 1e-5), [X]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_native_norms_match_torch(name, real_torch):
    fn, arrays = CASES[name]
    check_case(fn, arrays, real_torch)


def test_group_norm_reads_the_input_as_n_c_hxw(real_torch):
    # the input is viewed as (1, 4, 6) first: the output's node is a view of PyTorch's
    check_case(
        lambda t, x: t.native_group_norm(x, None, None, 1, 4, 6, 2, 1e-5),
        [X],
        real_torch,
        names=False,
    )


ERRORS = [
    lambda t: t.native_group_norm(t.ones(2, 6, 3), None, None, 2, 6, 4, 2, 1e-5),
    lambda t: t.native_group_norm(t.ones(2, 6, 3), None, None, 2, 6, 3, 4, 1e-5),
    lambda t: t.native_group_norm(t.ones(2, 6, 3), t.ones(5), None, 2, 6, 3, 2, 1e-5),
    lambda t: t.native_batch_norm(t.ones(2, 3), None, None, t.zeros(3), None, True, 0.1, 1e-5),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index, real_torch):
    check_error(ERRORS[index], real_torch)


def test_evaluation_without_running_statistics_raises():
    # (PyTorch's CPU kernel reads the absent statistics and crashes)
    x = autograd_compat.ones(2, 3)
    with pytest.raises(RuntimeError, match="_native_batch_norm_legit: running_mean and"):
        autograd_compat._native_batch_norm_legit(x, None, None, False, 0.1, 1e-5)
