"""Tensor printing in PyTorch's format, compared with real PyTorch when installed."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat as torch

CASES = {
    "ones_leaf": lambda lib: lib.ones(2, 2, requires_grad=True),
    "mean_node": lambda lib: (lib.ones(2, 2, requires_grad=True) * 1.5).mean(),
    "tiny_and_one": lambda lib: lib.tensor([1e-5, 1.0]),
    "int_mode_wide": lambda lib: lib.tensor([1.0, 2.0, 1000.0]),
    "sci_mode": lambda lib: lib.tensor([1.0, 2.0, 1001.0]),
    "int_scalar": lambda lib: lib.tensor(3),
    "int32": lambda lib: lib.tensor([1, 2], dtype=lib.int32),
    "bool": lambda lib: lib.tensor([True, False]),
    "empty_float64": lambda lib: lib.tensor([], dtype=lib.float64),
    "empty_2d": lambda lib: lib.zeros(0, 3),
    "wrapping": lambda lib: lib.arange(100.0),
    "summarized": lambda lib: lib.arange(2000.0),
    "three_d_float64": lambda lib: lib.tensor(
        np.linspace(-2, 2, 24).reshape(2, 3, 4), dtype=lib.float64
    ),
    "nan_inf": lambda lib: lib.tensor([1.5, float("nan"), float("inf")]),
    "half": lambda lib: lib.tensor([0.1, 0.2], dtype=lib.float16),
    "negative_scalar_node": lambda lib: -lib.tensor(2.5, requires_grad=True),
    "big_int": lambda lib: lib.tensor([[1, -20], [300, 4]]),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", list(CASES))
def test_repr_matches_pytorch(name, real_torch):
    assert repr(CASES[name](torch)) == repr(CASES[name](real_torch))


def test_founding_repr_without_pytorch():
    x = torch.ones(2, 2, requires_grad=True)
    assert repr(x) == "tensor([[1., 1.],\n        [1., 1.]], requires_grad=True)"
    assert repr((x * 1.5).mean()) == "tensor(1.5000, grad_fn=<MeanBackward0>)"
    assert str(torch.tensor([4.5, 4.5])) == "tensor([4.5000, 4.5000])"
