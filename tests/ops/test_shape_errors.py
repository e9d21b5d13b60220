"""Shapes that do not broadcast raise PyTorch's RuntimeError, with its text, from every op.

The sweep takes each row of the op table that PyTorch has and whose tensor inputs all share
one shape, gives its last input a shape that does not broadcast with the others, and compares
what both libraries raise. JAX refuses such shapes with its own ValueError or TypeError; the
op call turns that into PyTorch's error (`_pure/shapes.pytorch_shape_error`), so every op
gets it whether or not its front end checks shapes.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

import autograd_compat
from autograd_compat._pure.shapes import broadcast_shapes, pytorch_shape_error
from tests._helpers.torch_compare import catch, compare
from tests.ops.op_table import ROWS, OpCase, S, make_array

BAD = (3, 5)  # does not broadcast with S = (3, 4)
SWEPT = [
    row
    for row in ROWS
    if row.torch
    and len(row.inputs) >= 2
    and all(isinstance(shape, tuple) and shape == S for shape in row.inputs)
]


def _bad_inputs(row: OpCase) -> list[np.ndarray]:
    kinds = (row.domain,) * len(row.inputs) if isinstance(row.domain, str) else row.domain
    shapes = [*row.inputs[:-1], BAD]
    return [make_array(s, k, i) for i, (s, k) in enumerate(zip(shapes, kinds))]


def _run(lib, row: OpCase, arrays):
    return row.call(lib, *[lib.tensor(a) for a in arrays])


@pytest.mark.torch
@pytest.mark.parametrize("row", SWEPT, ids=[row.id for row in SWEPT])
def test_bad_shapes_raise_pytorchs_error(row, real_torch):
    arrays = _bad_inputs(row)
    expected = catch(lambda: _run(real_torch, row, arrays))
    actual = catch(lambda: _run(autograd_compat, row, arrays))
    assert not compare(expected, actual), "\n".join(compare(expected, actual))


def test_the_sweep_covers_the_broadcasting_ops():
    covered = {row.id for row in SWEPT}
    assert {"add", "mul", "atan2", "where", "mse_loss", "l1_loss", "huber_loss"} <= covered


@pytest.mark.parametrize(
    ("shapes", "message"),
    [
        (
            [(2, 3), (3, 2)],
            "tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1",
        ),
        (
            [(4, 3), (4, 3), (5, 1, 2)],
            "tensor a (3) must match the size of tensor b (2) at non-singleton dimension 2",
        ),
    ],
)
def test_translation_names_the_last_dimension_that_differs(shapes, message):
    error = None
    try:
        jnp.broadcast_shapes(*shapes)
    except ValueError as refused:
        error = refused
    translated = pytorch_shape_error(error)
    assert isinstance(translated, RuntimeError) and message in str(translated)
    with pytest.raises(RuntimeError, match="non-singleton dimension 1"):
        broadcast_shapes((2, 3), (3, 2))


def test_other_errors_are_not_translated():
    assert pytorch_shape_error(ValueError("something else")) is None
    assert pytorch_shape_error(KeyError("Incompatible shapes for broadcasting: shapes=[]")) is None
