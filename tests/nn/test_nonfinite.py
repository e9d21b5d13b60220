"""Activations and regression losses at NaN and +-inf: values AND gradients as PyTorch's.
JAX's own derivatives hide a NaN (relu, threshold: value or gradient 0) or make one
(elu/selu/celu at NaN, hardswish at +-inf, smooth_l1/huber at +-inf: inf * 0); the pure
functions follow PyTorch's comparisons (x <= 0, not x > 0) with double `where`s.

Not covered: hardshrink and softshrink (not implemented yet).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import autograd_compat as ac
from tests._helpers.torch_compare import values

_TARGET = [0.0, 1.0, -1.0, 0.5, 2.0]

CASES = {
    "relu": lambda F, x: F.relu(x),
    "relu6": lambda F, x: F.relu6(x),
    "leaky_relu": lambda F, x: F.leaky_relu(x, 0.1),
    "elu": lambda F, x: F.elu(x),
    "selu": lambda F, x: F.selu(x),
    "celu": lambda F, x: F.celu(x, 0.5),
    "gelu": lambda F, x: F.gelu(x),
    "gelu_tanh": lambda F, x: F.gelu(x, approximate="tanh"),
    "silu": lambda F, x: F.silu(x),
    "mish": lambda F, x: F.mish(x),
    "hardswish": lambda F, x: F.hardswish(x),
    "hardsigmoid": lambda F, x: F.hardsigmoid(x),
    "hardtanh": lambda F, x: F.hardtanh(x),
    "softplus": lambda F, x: F.softplus(x),
    "softplus_beta": lambda F, x: F.softplus(x, 2.0, 5.0),
    "threshold": lambda F, x: F.threshold(x, 0.5, -2.0),
    "sigmoid": lambda F, x: F.sigmoid(x),
    "tanh": lambda F, x: F.tanh(x),
    "logsigmoid": lambda F, x: F.logsigmoid(x),
    "softsign": lambda F, x: F.softsign(x),
    "tanhshrink": lambda F, x: F.tanhshrink(x),
    "prelu": lambda F, x: F.prelu(x, x.new_tensor([0.25])),
    "smooth_l1": lambda F, x: F.smooth_l1_loss(x, x.new_tensor(_TARGET), reduction="none"),
    "smooth_l1_beta0": lambda F, x: F.smooth_l1_loss(
        x, x.new_tensor(_TARGET), reduction="none", beta=0.0
    ),
    "smooth_l1_target": lambda F, x: F.smooth_l1_loss(x.new_tensor(_TARGET), x, reduction="none"),
    "huber": lambda F, x: F.huber_loss(x, x.new_tensor(_TARGET), reduction="none"),
    "huber_delta": lambda F, x: F.huber_loss(x, x.new_tensor(_TARGET), delta=0.5, reduction="sum"),
    "huber_target": lambda F, x: F.huber_loss(x.new_tensor(_TARGET), x, reduction="none"),
    "mse": lambda F, x: F.mse_loss(x, x.new_tensor(_TARGET), reduction="none"),
    "l1": lambda F, x: F.l1_loss(x, x.new_tensor(_TARGET), reduction="none"),
    "l1_target": lambda F, x: F.l1_loss(x.new_tensor(_TARGET), x, reduction="none"),
    "l1_mean": lambda F, x: F.l1_loss(x, x.new_tensor(_TARGET)),
}
# gelu(+inf) in PyTorch is NaN from its vectorized float32/float16/bfloat16 kernel (5
# elements here) and inf from its scalar path (one element) and in float64: inf is kept.
KNOWN = {("gelu", math.inf, d) for d in ("float32", "float16", "bfloat16")}


def _run(lib, fn, value, dtype):
    x = lib.full((5,), value, dtype=getattr(lib, dtype), requires_grad=True)
    y = fn(lib.nn.functional, x)
    y.backward(lib.ones_like(y))
    return values(y), values(x.grad)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf], ids=["nan", "inf", "-inf"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_value_and_gradient_at_nonfinite_match_pytorch(name, value, dtype, real_torch):
    if (name, value, dtype) in KNOWN:
        pytest.skip("PyTorch's vectorized and scalar kernels disagree here")
    ours = _run(ac, CASES[name], value, dtype)
    theirs = _run(real_torch, CASES[name], value, dtype)
    for what, a, b in zip(("value", "gradient"), ours, theirs):
        np.testing.assert_array_equal(a, b, err_msg=f"{name}({value}) {what}, {dtype}")


@pytest.mark.parametrize("name", ["relu", "threshold", "elu", "hardswish", "hardsigmoid", "huber"])
def test_finite_inputs_unchanged(name, real_torch):
    """The rewritten functions still match PyTorch at ordinary points, the kinks included."""
    data = [-4.0, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 4.0]

    def run(lib):
        x = lib.tensor(data, dtype=lib.float64, requires_grad=True)
        fn = CASES[name]
        y = fn(lib.nn.functional, x[:5]) if name == "huber" else fn(lib.nn.functional, x)
        y.backward(lib.ones_like(y))
        return values(y), values(x.grad)

    for a, b in zip(run(ac), run(real_torch)):  # PyTorch's hardsigmoid slope is float(1/6)
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-15)
