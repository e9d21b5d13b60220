"""linear and bilinear: one fused matmul op each (PyTorch's addmm and friends)."""

from __future__ import annotations

import math

import jax.numpy as jnp

from ..._pure.row_sums import add_row
from ..._tape.record import apply
from ._common import _HIGHEST, _tensor, register

__all__ = ["bilinear", "linear"]


def _linear_fn(x, w, *b):
    """`x @ w.T + b`, a batch of rows flattened into one matrix first, as PyTorch's addmm
    takes it (XLA:CPU multiplies one matrix faster), the bias added by `add_row`, whose
    gradient is a product with ones (`_pure/row_sums`)."""
    if x.ndim > 2:
        rows = _linear_fn(x.reshape(math.prod(x.shape[:-1]), x.shape[-1]), w, *b)
        return rows.reshape(*x.shape[:-1], w.shape[0])
    y = jnp.matmul(x, w.T, precision=_HIGHEST)
    return add_row(y, b[0]) if b else y


_ADDMM = register("linear.addmm", _linear_fn, node="AddmmBackward0", saves="others")
_MM = register("linear.mm", _linear_fn, node="MmBackward0", saves="others")
_LINEAR_VIEW = register("linear.view", _linear_fn, node="ViewBackward0", saves="others")
_LINEAR_UNSAFE_VIEW = register(
    "linear.unsafe_view", _linear_fn, node="UnsafeViewBackward0", saves="others"
)


def linear(input, weight, bias=None):
    """`input @ weight.T + bias`: one fused op (PyTorch's addmm), differentiated by jax.vjp."""
    _tensor(input, "linear")
    _tensor(weight, "linear", "weight", 2)
    if input.ndim == 0 or input.shape[-1] != weight.shape[-1]:
        rows = math.prod(input.shape[:-1]) if input.ndim > 1 else 1
        cols = input.shape[-1] if input.ndim else 1
        w = weight.shape
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{cols} and "
            f"{w[-1]}x{w[0] if weight.ndim > 1 else 1})"
        )
    if input.ndim == 2:
        op = _ADDMM if bias is not None else _MM
    else:
        op = _LINEAR_VIEW if bias is not None else _LINEAR_UNSAFE_VIEW
    if bias is None:
        return apply(op, input, weight)
    return apply(op, input, weight, bias)


def _bilinear_fn(x1, x2, w, *b):
    y = jnp.einsum("...i,oij,...j->...o", x1, w, x2, precision=_HIGHEST)
    return y + b[0] if b else y


_BILINEAR = register("bilinear", _bilinear_fn, node="AddBackward0")
_BILINEAR_NO_BIAS = register("bilinear.no_bias", _bilinear_fn, node="ViewBackward0")


def bilinear(input1, input2, weight, bias=None):
    """`y = x1^T A x2 + b` for each output feature."""
    _tensor(input1, "bilinear", "input1")
    _tensor(input2, "bilinear", "input2", 2)
    if input1.shape[:-1] != input2.shape[:-1]:
        raise RuntimeError(
            "bilinear(): input batch dimensions do not match: got "
            f"{list(input1.shape[:-1])} and {list(input2.shape[:-1])}"
        )
    if input1.shape[-1] != weight.shape[1] or input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(
            f"bilinear(): input sizes {input1.shape[-1]} and {input2.shape[-1]} do not match the "
            f"weight of size {list(weight.shape)}"
        )
    if bias is None:
        return apply(_BILINEAR_NO_BIAS, input1, input2, weight)
    return apply(_BILINEAR, input1, input2, weight, bias)
