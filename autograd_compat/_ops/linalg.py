"""Matrix products: matmul (with PyTorch's node names per case), mm, and the `@` operator."""

from __future__ import annotations

import jax.numpy as jnp

from .. import _dtypes
from .._tensor import Tensor
from . import apply, register
from ._args import tensor_arg

__all__ = ["matmul", "mm"]


def _matmul(a, b):
    return jnp.matmul(a, b, precision="highest")


# PyTorch names the node after the kernel that matmul dispatches to for these shapes.
_MM = register("MmBackward0", _matmul, saves="others")
_DOT = register("DotBackward0", _matmul, saves="others")
_MV = register("MvBackward0", _matmul, saves="others")
_VM = register("SqueezeBackward4", _matmul, saves="others")
_BATCHED = register("UnsafeViewBackward0", _matmul, saves="others")


def _check_dtypes(a: Tensor, b: Tensor) -> None:
    if a.dtype is not b.dtype:
        raise RuntimeError(
            "expected m1 and m2 to have the same dtype, but got: "
            f"{_dtypes.LEGACY_TYPE_NAMES[a.dtype].removesuffix('Tensor').lower()} != "
            f"{_dtypes.LEGACY_TYPE_NAMES[b.dtype].removesuffix('Tensor').lower()}"
        )


def _shape_text(shape) -> str:
    return "x".join(str(s) for s in shape)


def matmul(input, other):
    """Matrix product with NumPy's rules for 1-D and batched operands."""
    tensor_arg(input, "matmul")
    tensor_arg(other, "matmul", "other", 2)
    if input.ndim == 0 or other.ndim == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {input.ndim}D "
            f"and {other.ndim}D"
        )
    _check_dtypes(input, other)
    a, b = tuple(input.shape), tuple(other.shape)
    if input.ndim == 1 and other.ndim == 1:
        if a != b:
            raise RuntimeError(
                f"inconsistent tensor size, expected tensor [{a[0]}] and src [{b[0]}] to have "
                f"the same number of elements, but got {a[0]} and {b[0]} elements respectively"
            )
        return apply(_DOT, input, other)
    if other.ndim == 1:
        if a[-1] != b[0]:
            raise RuntimeError(
                f"size mismatch, got input ({a[0]}), mat ({_shape_text(a)}), vec ({b[0]})"
            )
        return apply(_MV if input.ndim == 2 else _BATCHED, input, other)
    if input.ndim == 1:
        if a[0] != b[-2]:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied (1x{a[0]} and {_shape_text(b)})"
            )
        return apply(_VM if other.ndim == 2 else _BATCHED, input, other)
    if a[-1] != b[-2]:
        if input.ndim == 2 and other.ndim == 2:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({_shape_text(a)} and {_shape_text(b)})"
            )
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{_batch(a)}, {a[-1]}] but got: [{_batch(b)}, {b[-2]}]."
        )
    try:
        jnp.broadcast_shapes(a[:-2], b[:-2])
    except ValueError:
        from .._shapes import broadcast_shapes

        broadcast_shapes(a[:-2], b[:-2])
    op = _MM if input.ndim == 2 and other.ndim == 2 else _BATCHED
    return apply(op, input, other)


def _batch(shape) -> int:
    size = 1
    for s in shape[:-2]:
        size *= s
    return size


def mm(input, mat2):
    """Product of two matrices (2-D only)."""
    tensor_arg(input, "mm")
    tensor_arg(mat2, "mm", "mat2", 2)
    if input.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    return matmul(input, mat2)


def _rmatmul(self, other):
    if not isinstance(other, Tensor):
        return NotImplemented
    return matmul(other, self)


for _name, _fn in {
    "matmul": matmul,
    "mm": mm,
    "__matmul__": matmul,
    "__rmatmul__": _rmatmul,
}.items():
    setattr(Tensor, _name, _fn)
