"""F.rms_norm, torch.rms_norm and nn.RMSNorm against real PyTorch: values, dtypes, grad_fn
names and float64 gradients, the default eps per dtype, the module's repr and errors."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat
from tests._helpers.torch_compare import arr, check_case, check_error

X = arr((2, 3, 4))
W = arr((3, 4), "pos")

CASES = {
    "last_dim_weight": (lambda t, x, w: t.nn.functional.rms_norm(x, [4], w[0]), [X, W]),
    "two_dims_eps": (lambda t, x, w: t.nn.functional.rms_norm(x, (3, 4), w, eps=1e-3), [X, W]),
    "no_weight_size": (lambda t, x: t.rms_norm(x, x.shape[1:]), [X]),
    "float32": (
        lambda t, x, w: t.rms_norm(x, [3, 4], w),
        [X.astype(np.float32), W.astype(np.float32)],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_rms_norm_matches_torch(name, real_torch):
    fn, arrays = CASES[name]
    check_case(fn, arrays, real_torch)


def test_module_matches_torch(real_torch):
    modules = {}
    for lib in (autograd_compat, real_torch):
        norm = lib.nn.RMSNorm([3, 4], eps=1e-4, dtype=lib.float64)
        plain = lib.nn.RMSNorm(4, elementwise_affine=False)
        modules[lib] = (norm, plain)
        assert [repr(m) for m in modules[lib]] == [
            "RMSNorm((3, 4), eps=0.0001, elementwise_affine=True)",
            "RMSNorm((4,), eps=None, elementwise_affine=False)",
        ]
        assert list(norm.state_dict()) == ["weight"] and not hasattr(norm, "bias")
    check_case(
        lambda t, x: [m(x) for m in modules[t]],
        [X],
        real_torch,
        requires_grad=[True],
    )


def test_half_input_keeps_its_dtype(real_torch):
    check_case(lambda t, x: t.rms_norm(x.half(), [4]), [X.astype(np.float32)], real_torch)


ERRORS = [
    lambda t: t.rms_norm(t.zeros(2, 3), 3),
    lambda t: t.rms_norm(t.zeros(2, 3), [4]),
    lambda t: t.rms_norm(t.zeros(2, 2, 3), [2, 4]),
    lambda t: t.rms_norm(t.zeros(2, 3), [3], t.ones(2)),
    lambda t: t.rms_norm(t.zeros(2, 3), []),
    lambda t: t.rms_norm(t.zeros(2, 3), [2, 3, 4]),
    lambda t: t.rms_norm(t.zeros(2, 3, dtype=t.long), [3]),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index, real_torch):
    check_error(ERRORS[index], real_torch)
