"""torch.testing.assert_close and make_tensor against PyTorch: error types and messages."""

from __future__ import annotations

import numpy as np
import pytest

import autograd_compat as torch
from tests._helpers.torch_compare import check_error

pytestmark = pytest.mark.torch

nan = float("nan")

FAILING = [
    lambda t: t.testing.assert_close(t.tensor([1.0, 2.0, 3.0]), t.tensor([1.0, 2.5, 3.0])),
    lambda t: t.testing.assert_close(
        t.tensor([[1.0, 2.0], [3.0, 4.0]]), t.tensor([[1.0, 2.0], [3.5, 4.1]])
    ),
    lambda t: t.testing.assert_close(t.tensor([1.0, 2.0]), t.tensor([1.0, 2.0]).double()),
    lambda t: t.testing.assert_close(t.tensor([1.0, 2.0]), t.tensor([1.0, 2.0, 3.0])),
    lambda t: t.testing.assert_close(t.tensor([1.0]), t.tensor([1.0]), rtol=1e-3),
    lambda t: t.testing.assert_close(t.tensor([1.0]), t.tensor([1.0]), atol=1e-3),
    lambda t: t.testing.assert_close(t.tensor([1.0, nan]), t.tensor([1.0, nan])),
    lambda t: t.testing.assert_close(t.tensor([1, 2]), t.tensor([1, 3])),
    lambda t: t.testing.assert_close(t.tensor([True]), t.tensor([False])),
    lambda t: t.testing.assert_close(1.0, 1.5),
    lambda t: t.testing.assert_close(1, 2),
    lambda t: t.testing.assert_close([t.tensor(1.0)], [t.tensor(2.0)]),
    lambda t: t.testing.assert_close({"a": [t.tensor(1.0)]}, {"a": [t.tensor(2.0)]}),
    lambda t: t.testing.assert_close(t.tensor(1.0), t.tensor(1.5), msg="custom"),
    lambda t: t.testing.assert_close([1.0, 2.0], [1.0, 2.0, 3.0]),
    lambda t: t.testing.assert_close(t.tensor([1e-3, 5.0]), t.tensor([2e-3, 5.0]).half().float()),
    lambda t: t.testing.assert_close(t.tensor([1.0, 2.0]).half(), t.tensor([1.0, 2.01]).half()),
]


@pytest.mark.parametrize("case", range(len(FAILING)))
def test_failures_match_pytorch(case, real_torch):
    check_error(FAILING[case], real_torch)


def test_type_mismatch_is_a_type_error(real_torch):
    check_error(lambda t: t.testing.assert_close(t.tensor([1.0]), 1.0), real_torch, message=False)


PASSING = [
    lambda t: t.testing.assert_close(t.tensor([1.0, 2.0]), t.tensor([1.0, 2.00001])),
    lambda t: t.testing.assert_close(t.tensor([1.0, nan]), t.tensor([1.0, nan]), equal_nan=True),
    lambda t: t.testing.assert_close(
        t.tensor([1.0, 2.0]), t.tensor([1.0, 2.0]).double(), check_dtype=False
    ),
    lambda t: t.testing.assert_close(t.tensor([1.0, 2.0]), t.tensor([1.0, 2.5]), rtol=0.5, atol=0),
    lambda t: t.testing.assert_close(t.ones(2, requires_grad=True), t.ones(2)),
    lambda t: t.testing.assert_close({"a": (1, 2.0)}, {"a": (1, 2.0)}),
]


@pytest.mark.parametrize("case", range(len(PASSING)))
def test_passes_as_pytorch(case, real_torch):
    PASSING[case](real_torch)
    PASSING[case](torch)


def test_make_tensor_ranges_and_options():
    x = torch.testing.make_tensor(200, dtype=torch.float32)
    assert x.shape == (200,) and x.dtype == torch.float32
    assert -9 <= x.min().item() and x.max().item() < 9
    i = torch.testing.make_tensor((3, 50), dtype=torch.int64, low=-2, high=3, exclude_zero=True)
    values = set(np.unique(i.numpy()).tolist())
    assert values <= {-2, -1, 1, 2} and i.dtype == torch.int64
    b = torch.testing.make_tensor(4, 5, dtype=torch.bool)
    assert b.dtype == torch.bool and b.shape == (4, 5)
    g = torch.testing.make_tensor(3, dtype=torch.float64, requires_grad=True, low=0, high=1)
    assert g.requires_grad and g.dtype == torch.float64 and 0 <= g.min().item()
    with pytest.raises(TypeError):
        torch.testing.make_tensor(3)  # dtype is required, as in PyTorch
