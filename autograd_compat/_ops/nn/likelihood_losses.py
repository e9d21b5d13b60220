"""Negative log-likelihood losses of a distribution's parameters: Poisson and Gaussian."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from ..._pure.op import scalar_input
from ..._state.tensor import Tensor
from ..._tape.record import apply
from ..factories import ones_like
from ._common import _same_dtype
from .loss import _check_tensors, _legacy_reduction, _reduce
from .margin_losses import by_reduction

__all__ = ["gaussian_nll_loss", "poisson_nll_loss"]


def _poisson_fn(x, t, eps, *, log_input, full, reduction):
    if log_input:
        loss = jnp.exp(x) - t * x
    else:
        loss = x - t * jnp.log(x + eps.astype(x.dtype))
    if full:
        stirling = t * jnp.log(t) - t + 0.5 * jnp.log(2 * math.pi * t)
        loss = loss + jnp.where(t <= 1, jnp.zeros((), loss.dtype), stirling)
    return _reduce(loss, reduction)


_POISSON = by_reduction("poisson_nll_loss", _poisson_fn, "SubBackward0")
_POISSON_FULL = by_reduction("poisson_nll_loss.full", _poisson_fn, "AddBackward0")


def poisson_nll_loss(
    input,
    target,
    log_input: bool = True,
    full: bool = False,
    size_average=None,
    eps: float = 1e-8,
    reduce=None,
    reduction: str = "mean",
):
    """exp(input) - target * input (log_input), or input - target * log(input + eps);
    `full` adds Stirling's approximation of log(target!) where target > 1."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    _check_tensors("poisson_nll_loss", input, target)
    x, t = _same_dtype(input, target)
    ops = _POISSON_FULL if full else _POISSON
    return apply(
        ops[reduction],
        x,
        t,
        scalar_input(float(eps)),
        log_input=bool(log_input),
        full=bool(full),
        reduction=reduction,
    )


@jax.custom_jvp
def _clamped(var, eps):
    """max(var, eps) whose derivative is the identity's: PyTorch clamps a clone of var under
    no_grad, so the gradient reaches var unchanged."""
    return jnp.maximum(var, eps)


@_clamped.defjvp
def _clamped_jvp(primals, tangents):
    return _clamped(*primals), tangents[0]


def _gaussian_fn(x, t, var, eps, *, full, reduction):
    var = _clamped(var, eps.astype(var.dtype))
    loss = 0.5 * (jnp.log(var) + (x - t) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


_GAUSSIAN = by_reduction("gaussian_nll_loss", _gaussian_fn, "MulBackward0")
_GAUSSIAN_FULL = by_reduction("gaussian_nll_loss.full", _gaussian_fn, "AddBackward0")


def _checked_var(input: Tensor, var) -> Tensor:
    """PyTorch's checks of `var`: no negative entry, and its size the input's, the input's
    without the last dimension (unsqueezed here), or one dimension of size 1 short of it."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        return var * ones_like(input)
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.size() == input.size():
        return var
    if input.size()[:-1] == var.size():
        return var.unsqueeze(-1)
    mismatched = [v for i, v in zip(input.size(), var.size()) if i != v]
    if input.ndim == var.ndim and sum(mismatched) == 1:
        return var
    raise ValueError("var is of incorrect size")


def gaussian_nll_loss(
    input,
    target,
    var,
    full: bool = False,
    eps: float = 1e-6,
    reduction: str = "mean",
):
    """0.5 (log(var) + (input - target)² / var), with var clamped at `eps` (its gradient
    unclamped, as PyTorch's); `full` adds 0.5 log(2 pi)."""
    var = _checked_var(input, var)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not valid")
    x, t, v = _same_dtype(input, target, var)
    ops = _GAUSSIAN_FULL if full else _GAUSSIAN
    eps_input = scalar_input(float(eps))
    return apply(ops[reduction], x, t, v, eps_input, full=bool(full), reduction=reduction)
