"""Norm-based ops: normalize, cosine_similarity, pairwise_distance."""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from ..._pure.op import scalar_input
from ..._pure.shapes import normalize_dim, unique_dims
from ..._tape.record import apply
from ..out_arg import takes_out
from ._common import _same_dtype, _tensor, register

__all__ = ["cosine_similarity", "normalize", "pairwise_distance"]


# p and eps are runtime inputs (float64 host scalars), so a new value never compiles; p = 1, 2
# and inf stay static (`special`), as does 0 (the count of non-zeros).
_P_SPECIAL = frozenset([0.0, 1.0, 2.0, math.inf])
_NO_P = np.zeros((), np.float64)  # the unused p input of a special p


def _p_args(p) -> tuple:
    """(static `special` p or None, the runtime p input) for a norm order `p`."""
    p = float(p)
    return (p, _NO_P) if p in _P_SPECIAL else (None, scalar_input(p))


def _normalize_fn(x, p, eps, *, special, dim):
    norm = _p_norm(x, special, dim, keepdims=True, runtime_p=p)
    return x / jnp.maximum(norm, eps.astype(norm.dtype))


def _p_norm(x, p, axis, keepdims=False, runtime_p=None):
    """The p-norm with a zero (not NaN) gradient at 0, as PyTorch's norm backward gives;
    `p` None: the order is `runtime_p`, a float64 array."""
    a = jnp.abs(x)
    if p == math.inf:
        return jnp.max(a, axis=axis, keepdims=keepdims)
    if p == 0:
        return jnp.sum((a != 0).astype(a.dtype), axis=axis, keepdims=keepdims)
    exponent = p if p is not None else runtime_p.astype(a.dtype)
    powered = jnp.sum(a**exponent, axis=axis, keepdims=keepdims)
    zero = powered == 0
    safe = jnp.where(zero, 1.0, powered)
    if p == 2:
        root = jnp.sqrt(safe)
    else:  # 1 / p rounded once from float64, as a Python float would be
        inverse = 1.0 / p if p is not None else (1.0 / runtime_p).astype(a.dtype)
        root = safe**inverse
    return jnp.where(zero, 0.0, root)


_NORMALIZE = register("normalize", _normalize_fn, node="DivBackward0", shown_inputs=(0,))


@takes_out
def normalize(input, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None):
    """`input / max(||input||_p, eps)` along `dim`."""
    _tensor(input, "normalize")
    dims = unique_dims(dim, input.ndim)  # checked on a 0-d input too: [-1, 0]
    axis = () if not input.ndim else dims[0] if len(dims) == 1 else dims
    special, p_input = _p_args(p)
    return apply(_NORMALIZE, input, p_input, scalar_input(float(eps)), special=special, dim=axis)


def _cosine_fn(x1, x2, eps, *, dim):
    x1, x2 = jnp.broadcast_arrays(x1, x2)
    dot = jnp.sum(x1 * x2, axis=dim)
    n1 = jnp.sqrt(jnp.sum(x1 * x1, axis=dim))
    n2 = jnp.sqrt(jnp.sum(x2 * x2, axis=dim))
    return dot / jnp.maximum(n1 * n2, eps.astype(dot.dtype))


_COSINE = register("cosine_similarity", _cosine_fn, node="SumBackward1", shown_inputs=(0, 1))


def cosine_similarity(x1, x2, dim: int = 1, eps: float = 1e-8):
    """Cosine of the angle between x1 and x2 along `dim`."""
    _tensor(x1, "cosine_similarity", "x1")
    _tensor(x2, "cosine_similarity", "x2", 2)
    x1, x2 = _same_dtype(x1, x2, floating=False)
    ndim = max(x1.ndim, x2.ndim)
    dim = normalize_dim(dim, ndim)
    return apply(_COSINE, x1, x2, scalar_input(float(eps)), dim=dim if ndim else None)


def _pairwise_fn(x1, x2, p, eps, *, special, keepdim):
    diff = x1 - x2 + eps.astype(x1.dtype)
    return _p_norm(diff, special, -1, keepdims=keepdim, runtime_p=p)


_PAIRWISE = register("pairwise_distance", _pairwise_fn, node="NormBackward1", shown_inputs=(0, 1))


def pairwise_distance(x1, x2, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
    """||x1 - x2 + eps||_p over the last dimension."""
    x1, x2 = _same_dtype(x1, x2)
    special, p_input = _p_args(p)
    eps_input = scalar_input(float(eps))
    return apply(_PAIRWISE, x1, x2, p_input, eps_input, special=special, keepdim=keepdim)
