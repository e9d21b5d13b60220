"""Gradient clipping: clip_grad_norm_ and clip_grad_value_, one jitted call each."""

from __future__ import annotations

import functools
import math
import warnings

import jax.numpy as jnp
import numpy as np

from ..._ops.factories import tensor
from ..._pure import executables
from ..._state.tensor import Tensor


def _as_list(parameters) -> list:
    if isinstance(parameters, Tensor):
        return [parameters]
    return list(parameters)


def _vector_norm(x, norm_type):
    x = jnp.abs(x)
    if norm_type == math.inf:
        return jnp.max(x)
    if norm_type == -math.inf:
        return jnp.min(x)
    if norm_type == 0:
        return jnp.sum(x != 0).astype(x.dtype)
    if norm_type == 1:
        return jnp.sum(x)
    if norm_type == 2:
        return jnp.sqrt(jnp.sum(x * x))
    return jnp.sum(x**norm_type) ** (1.0 / norm_type)


@functools.partial(executables.jit, static_argnums=(1,))
def _total_norm(grads, norm_type):
    norms = jnp.stack([_vector_norm(g, norm_type) for g in grads])
    return _vector_norm(norms, norm_type)


@executables.jit
def _scale(grads, total_norm, max_norm):
    coef = max_norm.astype(total_norm.dtype) / (total_norm + 1e-6)
    coef = jnp.minimum(coef, 1.0)
    return [g * coef.astype(g.dtype) for g in grads]


def _write(tensor: Tensor, value) -> None:
    tensor._set_value(value)
    tensor._bump_version()


def get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False, foreach=None):
    """The norm of the per-tensor norms of `tensors` (as if they were one vector)."""
    tensors = [t for t in _as_list(tensors) if t is not None]
    norm_type = float(norm_type)
    if not tensors:
        return tensor(0.0)
    total = _total_norm([t._value for t in tensors], norm_type)
    if error_if_nonfinite and not bool(jnp.isfinite(total)):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the gradients "
            "by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    return Tensor._wrap(total)


def clip_grad_norm_(
    parameters,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach=None,
):
    """Scale the gradients in place so their total norm is at most `max_norm`.

    Returns the total norm before clipping (a tensor), as PyTorch does.

    Example::

        >>> model = nn.Linear(2, 1)
        >>> loss = model(torch.ones(1, 2)).sum() * 10
        >>> loss.backward()
        >>> nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        tensor(17.3205)
        >>> model.weight.grad, model.bias.grad
        (tensor([[0.5774, 0.5774]]), tensor([0.5774]))
    """
    parameters = _as_list(parameters)
    total = get_total_norm([p._grad for p in parameters], norm_type, error_if_nonfinite)
    clip_grads_with_norm_(parameters, max_norm, total)
    return total


def clip_grads_with_norm_(parameters, max_norm: float, total_norm, foreach=None) -> None:
    """Scale the gradients in place by `max_norm / (total_norm + 1e-6)`, at most 1: the second
    half of `clip_grad_norm_`, given a total norm computed already (`get_total_norm`, or one
    reduced across processes)."""
    grads = [p._grad for p in _as_list(parameters) if p._grad is not None]
    if not grads:
        return
    total = total_norm._value if isinstance(total_norm, Tensor) else jnp.asarray(total_norm)
    for g, value in zip(grads, _scale([g._value for g in grads], total, np.float64(max_norm))):
        _write(g, value)


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated alias of clip_grad_norm_."""
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
        "`torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@executables.jit
def _clamp(grads, clip_value):
    return [jnp.clip(g, -clip_value.astype(g.dtype), clip_value.astype(g.dtype)) for g in grads]


def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamp every gradient in place to [-clip_value, clip_value]."""
    clip_value = float(clip_value)
    grads = [p._grad for p in _as_list(parameters) if p._grad is not None]
    if not grads:
        return
    for g, value in zip(grads, _clamp([g._value for g in grads], np.float64(clip_value))):
        _write(g, value)
