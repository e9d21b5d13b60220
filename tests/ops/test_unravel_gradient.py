"""torch.unravel_index and torch.gradient against real PyTorch: values, dtypes, float64
gradients of torch.gradient (uniform, per-dimension and coordinate spacing, both edge
orders), and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

from tests._helpers.torch_compare import arr, check_case, check_error

F = arr((3, 5))
COORDS = np.array([0.0, 0.5, 1.5, 2.0, 3.5])

UNRAVEL = {
    "flat": lambda t, i: t.unravel_index(i, (3, 4)),
    "int_shape": lambda t, i: t.unravel_index(i, 12),
    "size_shape": lambda t, i: t.unravel_index(i.view(2, 3), t.Size([2, 2, 3])),
    "negative_wraps": lambda t, i: t.unravel_index(-i, (4, 3)),
    "int32": lambda t, i: t.unravel_index(i.int(), (6, 2)),
}


@pytest.mark.parametrize("name", sorted(UNRAVEL))
def test_unravel_index_matches_torch(name, real_torch):
    check_case(UNRAVEL[name], [np.array([0, 4, 7, 11, 5, 2])], real_torch)


GRADIENT = {
    "default": (lambda t, f, x: t.gradient(f), {}),
    "none": (lambda t, f, x: t.gradient(f, spacing=None, dim=None), {}),
    "scalar_spacing_edge2": (lambda t, f, x: t.gradient(f, spacing=0.5, edge_order=2), {}),
    "per_dim_spacing": (lambda t, f, x: t.gradient(f, spacing=(2.0, 3.0)), {}),
    "dim_list": (lambda t, f, x: t.gradient(f, dim=[1], spacing=[0.25]), {}),
    "coordinates": (lambda t, f, x: t.gradient(f, spacing=[x], dim=1), {"x": True}),
    "coordinates_edge2": (
        lambda t, f, x: t.gradient(f, spacing=[x], dim=-1, edge_order=2),
        {"x": True},
    ),
    "int_input": (lambda t, f, x: t.gradient((f * 10).long(), dim=0), {}),
}


@pytest.mark.parametrize("name", sorted(GRADIENT))
def test_gradient_matches_torch(name, real_torch):
    fn, options = GRADIENT[name]
    check_case(
        fn, [F, COORDS], real_torch, requires_grad=[True, options.get("x", False)], names=False
    )


ERRORS = [
    lambda t: t.unravel_index(t.tensor([1.0]), (3, 3)),
    lambda t: t.unravel_index(t.tensor([True]), (2,)),
    lambda t: t.unravel_index(t.tensor([1]), (3, -1)),
    lambda t: t.unravel_index(t.tensor([1]), (3, 1.5)),
    lambda t: t.unravel_index(t.tensor([1]), 2.0),
    lambda t: t.gradient(t.ones(3, 4), edge_order=3),
    lambda t: t.gradient(t.ones(3, 1), dim=1),
    lambda t: t.gradient(t.ones(3, 4), spacing=[1.0, 2.0, 3.0]),
    lambda t: t.gradient(t.ones(3, 4), spacing=[1.0, 2.0], dim=1),
    lambda t: t.gradient(t.ones(3, 4), dim=(0, 0)),
    lambda t: t.gradient(t.ones(2), edge_order=2),
    lambda t: t.gradient(t.ones(3, 4), spacing=[t.tensor(2.0)], dim=1),
    lambda t: t.gradient(t.ones(3, 4), spacing=[2.0, t.tensor([1.0, 2.0, 3.0])]),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index, real_torch):
    check_error(ERRORS[index], real_torch)
