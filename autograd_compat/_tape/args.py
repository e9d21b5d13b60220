"""Argument handling shared by the op front ends: tensor checks, scalars, promotion."""

from __future__ import annotations

import functools
import numbers

import jax
import jax.numpy as jnp
import numpy as np

from .._defer.lazy import Pending, replaces
from .._pure import dtypes as _dtypes
from .._pure.dtypes import scalar_type_name
from .._pure.errors import INFERENCE_INPLACE, LEAF_INPLACE
from .._pure.op import INEXACT, constant
from .._pure.shapes import broadcast_shapes
from .._pure.sharding import keep_sharding
from .._state import modes as _grad_mode
from .._state.tensor import PLAIN_TYPES, MetaTensor, Tensor, hold_deferred
from .._tape.record import watch_written
from . import views as _views
from .autocast import unifies

SCALAR_TYPES = (bool, int, float, complex, numbers.Number)


def tensor_arg(x, fname: str, name: str = "input", position: int = 1) -> Tensor:
    """`x` if it is a Tensor, else PyTorch's TypeError naming the function and argument."""
    if isinstance(x, Tensor):
        return x
    raise TypeError(
        f"{fname}(): argument '{name}' (position {position}) must be Tensor, not {type(x).__name__}"
    )


def tensor_or_number_arg(x, fname: str):
    """`x` if it is a Tensor or a Python number, else `tensor_arg`'s error: the input of the
    arithmetic ops PyTorch lets take a number in a tensor's place (`torch.add(2, 3)`,
    `torch.div(n, k, rounding_mode="trunc")`), which then promotes as a wrapped number."""
    if isinstance(x, SCALAR_TYPES) and not hasattr(x, "shape"):
        return x
    return tensor_arg(x, fname)


def is_tracer(value) -> bool:
    """True when `value` is a JAX tracer (inside jit/vmap/grad), whose data is unknown."""
    return isinstance(value, jax.core.Tracer)


def check_integer_divisor(divisor, dtype: _dtypes.dtype) -> None:
    """PyTorch raises for integer division by zero; JAX would return garbage. Checked eagerly
    on concrete values (not under a jax trace, where the value is unknown)."""
    if dtype.is_floating_point or dtype.is_complex:
        return
    if isinstance(divisor, Tensor):
        value = divisor._value
        if is_tracer(value):
            return
        if not np.all(np.asarray(value)):
            raise RuntimeError("ZeroDivisionError")
    elif divisor == 0:
        raise RuntimeError("ZeroDivisionError")


def operands(a, b, dtype: _dtypes.dtype, scalar=None):
    """Turn Python scalars into cached constants of `dtype` (of the numpy dtype `scalar` where
    given); check tensor shapes broadcast."""
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        if a._stored.shape != b._stored.shape:
            broadcast_shapes(a._stored.shape, b._stored.shape)
        return a, b
    if scalar is None:
        scalar = dtype.jax
    if not isinstance(a, Tensor):
        a = constant(a, scalar)
    if not isinstance(b, Tensor):
        b = constant(b, scalar)
    return a, b


def floating(x: Tensor) -> Tensor:
    """`x`, cast to the default float dtype when it is integral (as PyTorch's float ops do)."""
    if x._stored.dtype in INEXACT:  # (the array's dtype: no conversion to ours, no calls)
        return x
    return x.to(_dtypes.get_default_dtype())


def check_same_dtype(
    a: Tensor, b: Tensor, message: str, *, lower: bool = False, autocast: bool = False
) -> None:
    """PyTorch's RuntimeError `message` unless `a` and `b` share a dtype; `{a}` and `{b}` in it
    stand for their ScalarType names ("Float", or "float" when `lower`). `autocast`: the op is
    on autocast's lists, whose casts come first (PyTorch casts before it checks)."""
    if a.dtype is not b.dtype and not (autocast and unifies(a, b)):
        names = [scalar_type_name(t.dtype) for t in (a, b)]
        if lower:
            names = [name.lower() for name in names]
        raise RuntimeError(message.format(a=names[0], b=names[1]))


def can_cast(source: _dtypes.dtype, target: _dtypes.dtype) -> bool:
    """PyTorch's canCast for in-place results: no complex to real, no floating to integral,
    nothing but bool to bool."""
    if source.is_complex and not target.is_complex:
        return False
    if source.is_floating_point and not (target.is_floating_point or target.is_complex):
        return False
    return not (target is _dtypes.bool and source is not _dtypes.bool)


def check_inplace(self: Tensor, inputs: tuple = ()) -> None:
    """PyTorch's checks before an in-place change of `self` from `inputs` (the op's other
    arguments). In grad mode, a leaf that requires grad, a view of one, or a view made in
    no_grad mode or by a multi-output op may not be changed (views that do not require grad
    are checked again at commit). Then, whatever the mode, no tensor input may partly overlap
    the memory written (`x[1:].add_(x[:-1])`: PyTorch's result would depend on the order of
    the writes). Nor may an inference tensor change outside inference mode."""
    if self._is_inference and not _grad_mode._state.inference:
        raise RuntimeError(INFERENCE_INPLACE)
    rec = self._storage
    if _grad_mode._state.enabled:
        if rec is None:
            if self._requires_grad and self._grad_fn is None:
                raise RuntimeError(LEAF_INPLACE)
        elif self.requires_grad:
            _views.check_inplace(self)
    if rec is not None and inputs:
        layout = _views.layout_of(self)
        for x in inputs:
            _views.assert_no_partial_overlap(rec.buffer, layout, x)


def commit_inplace(self: Tensor, result: Tensor) -> Tensor:
    """Give `self` the value (and grad_fn) of `result`, as a PyTorch in-place op does.

    `result` was computed out of place from `self`, so nothing is changed if it failed.
    The version counter is bumped, so nodes that saved the old value refuse to backward.
    Through a view, the write reaches the base and every other view of it, and a recorded
    change rebases the base's grad_fn onto a CopySlices node (see `_views.commit`).
    """
    if result is self:
        self._version_counter[0] += 1
        return self
    stored, old = result._stored, self._stored  # (their shapes and dtypes: no Size made)
    if stored.shape != old.shape:
        raise RuntimeError(
            f"output with shape {list(self.shape)} doesn't match the broadcast shape "
            f"{list(result.shape)}"
        )
    if stored.dtype is not old.dtype and result.dtype is not self.dtype:
        if not can_cast(result.dtype, self.dtype):
            raise RuntimeError(
                f"result type {scalar_type_name(result.dtype)} can't be cast to the desired "
                f"output type {scalar_type_name(self.dtype)}"
            )
        result = result.to(self.dtype)
    if self._fw_grad is not None or result._fw_grad is not None:
        _views.commit_tangent(self, result)
    if self._storage is not None:
        _views.commit(self, result)
        return self
    stored = result._stored
    if type(stored) is Pending and type(self) in PLAIN_TYPES and replaces(old):  # (no subclass)
        hold_deferred(self, stored)  # (a run of in-place ops stays one deferred run)
    elif isinstance(self, MetaTensor):  # no data to write (a meta result of the same shape)
        pass
    else:
        self._value = keep_sharding(result._value, self._value)
    self._version_counter[0] += 1
    node = result._grad_fn
    if node is not None:
        # The node read self before this write (arrays are immutable), so its copy stays valid.
        _views.exempt_self(node, self)
        watch_written(node, result, self)
        self._grad_fn = node
        self.output_nr = result.output_nr
        self._requires_grad = True
    return self


def jax_dtype(d) -> jnp.dtype:
    return _dtypes.as_dtype(d).jax


def numpy_names(fn):
    """`fn` also taking NumPy's `axis` and `keepdims` for `dim` and `keepdim`, as PyTorch's
    argument parser does for every native function (`x.sum(axis=1, keepdims=True)`). Put
    under `@takes_out`, so the Tensor method (bound without the `out=` wrapper) takes them
    too."""

    @functools.wraps(fn)
    def accepting(*args, **kwargs):
        if kwargs:
            if "axis" in kwargs:
                kwargs["dim"] = kwargs.pop("axis")
            if "keepdims" in kwargs:
                kwargs["keepdim"] = kwargs.pop("keepdims")
        return fn(*args, **kwargs)

    return accepting
