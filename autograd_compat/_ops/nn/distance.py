"""Norm-based ops: normalize, cosine_similarity, pairwise_distance."""

from __future__ import annotations

import math

import jax.numpy as jnp

from ..._pure.shapes import normalize_dim, unique_dims
from ..._tape.args import floating
from ..._tape.record import apply
from ._common import _same_dtype, _tensor, register

__all__ = ["cosine_similarity", "normalize", "pairwise_distance"]


def _normalize_fn(x, *, p, dim, eps):
    norm = _p_norm(x, p, dim, keepdims=True)
    return x / jnp.maximum(norm, eps)


def _p_norm(x, p, axis, keepdims=False):
    """The p-norm with a zero (not NaN) gradient at 0, as PyTorch's norm backward gives."""
    a = jnp.abs(x)
    if p == math.inf:
        return jnp.max(a, axis=axis, keepdims=keepdims)
    powered = jnp.sum(a**p, axis=axis, keepdims=keepdims)
    zero = powered == 0
    safe = jnp.where(zero, 1.0, powered)
    root = jnp.sqrt(safe) if p == 2 else safe ** (1.0 / p)
    return jnp.where(zero, 0.0, root)


_NORMALIZE = register("normalize", _normalize_fn, node="DivBackward0")


def normalize(input, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None):
    """`input / max(||input||_p, eps)` along `dim`."""
    _tensor(input, "normalize")
    dims = unique_dims(dim, input.ndim)  # checked on a 0-d input too: [-1, 0]
    axis = () if not input.ndim else dims[0] if len(dims) == 1 else dims
    return apply(_NORMALIZE, floating(input), p=float(p), dim=axis, eps=float(eps))


def _cosine_fn(x1, x2, *, dim, eps):
    x1, x2 = jnp.broadcast_arrays(x1, x2)
    dot = jnp.sum(x1 * x2, axis=dim)
    n1 = jnp.sqrt(jnp.sum(x1 * x1, axis=dim))
    n2 = jnp.sqrt(jnp.sum(x2 * x2, axis=dim))
    return dot / jnp.maximum(n1 * n2, eps)


_COSINE = register("cosine_similarity", _cosine_fn, node="DivBackward0")


def cosine_similarity(x1, x2, dim: int = 1, eps: float = 1e-8):
    """Cosine of the angle between x1 and x2 along `dim`."""
    _tensor(x1, "cosine_similarity", "x1")
    _tensor(x2, "cosine_similarity", "x2", 2)
    x1, x2 = _same_dtype(x1, x2)
    ndim = max(x1.ndim, x2.ndim)
    dim = normalize_dim(dim, ndim)
    return apply(_COSINE, x1, x2, dim=dim if ndim else None, eps=float(eps))


def _pairwise_fn(x1, x2, *, p, eps, keepdim):
    return _p_norm(x1 - x2 + eps, p, -1, keepdims=keepdim)


_PAIRWISE = register("pairwise_distance", _pairwise_fn, node="NormBackward1")


def pairwise_distance(x1, x2, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
    """||x1 - x2 + eps||_p over the last dimension."""
    x1, x2 = _same_dtype(x1, x2)
    return apply(_PAIRWISE, x1, x2, p=float(p), eps=float(eps), keepdim=keepdim)
