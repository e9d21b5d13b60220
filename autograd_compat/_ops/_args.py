"""Argument handling shared by the op front ends: tensor checks, scalars, promotion."""

from __future__ import annotations

import numbers

import jax.numpy as jnp

from .. import _dtypes, _grad_mode
from .._errors import LEAF_INPLACE
from .._shapes import broadcast_shapes
from .._tensor import Tensor
from . import constant

SCALAR_TYPES = (bool, int, float, complex, numbers.Number)


def tensor_arg(x, fname: str, name: str = "input", position: int = 1) -> Tensor:
    """`x` if it is a Tensor, else PyTorch's TypeError naming the function and argument."""
    if isinstance(x, Tensor):
        return x
    raise TypeError(
        f"{fname}(): argument '{name}' (position {position}) must be Tensor, not {type(x).__name__}"
    )


def as_operand(x):
    """A Tensor, a Python scalar, or (for arrays) a new Tensor; None if `x` is no operand."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, SCALAR_TYPES) and not hasattr(x, "shape"):
        return x
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        from .._factories import as_tensor

        return as_tensor(x)
    return None


def operands(a, b, dtype: _dtypes.dtype):
    """Turn Python scalars into cached constants of `dtype`; check tensor shapes broadcast."""
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        if a._value.shape != b._value.shape:
            broadcast_shapes(a._value.shape, b._value.shape)
        return a, b
    if not isinstance(a, Tensor):
        a = constant(a, dtype.jax)
    if not isinstance(b, Tensor):
        b = constant(b, dtype.jax)
    return a, b


def floating(x: Tensor) -> Tensor:
    """`x`, cast to the default float dtype when it is integral (as PyTorch's float ops do)."""
    d = x.dtype
    if d.is_floating_point or d.is_complex:
        return x
    return x.to(_dtypes.get_default_dtype())


def scalar_type_name(d: _dtypes.dtype) -> str:
    """PyTorch's ScalarType name ("Float", "Long") used in many error messages."""
    return _dtypes.LEGACY_TYPE_NAMES[d].removesuffix("Tensor")


def check_inplace(self: Tensor) -> None:
    """Refuse an in-place change of a leaf that requires grad while grad mode is on."""
    if self.grad_fn is None and self._requires_grad and _grad_mode.is_grad_enabled():
        raise RuntimeError(LEAF_INPLACE)


def commit_inplace(self: Tensor, result: Tensor) -> Tensor:
    """Give `self` the value (and grad_fn) of `result`, as a PyTorch in-place op does.

    `result` was computed out of place from `self`, so nothing is changed if it failed.
    The version counter is bumped, so nodes that saved the old value refuse to backward.
    """
    if result.shape != self.shape:
        raise RuntimeError(
            f"output with shape {list(self.shape)} doesn't match the broadcast shape "
            f"{list(result.shape)}"
        )
    if result.dtype is not self.dtype:
        if (result.dtype.is_floating_point or result.dtype.is_complex) and not (
            self.dtype.is_floating_point or self.dtype.is_complex
        ):
            raise RuntimeError(
                f"result type {scalar_type_name(result.dtype)} can't be cast to the desired "
                f"output type {scalar_type_name(self.dtype)}"
            )
        result = result.to(self.dtype)
    self._set_value(result._value)
    self._bump_version()
    node = result.grad_fn
    if node is not None:
        counter = self._version_counter
        # The node read the value before this write (arrays are immutable), so it stays valid.
        node.versions = tuple((c, c[0] if c is counter else v, r) for c, v, r in node.versions)
        self.grad_fn = node
        self.output_nr = result.output_nr
        self._requires_grad = True
    return self


def jax_dtype(d) -> jnp.dtype:
    return _dtypes.as_dtype(d).jax
