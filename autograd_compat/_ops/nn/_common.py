"""Helpers the nn op families share: argument checks, dtype promotion, the float32
opmath `register`, random keys and in-place commits.
"""

from __future__ import annotations

import jax.numpy as jnp
from jax import lax

from ..._pure import dtypes as _dtypes
from ..._pure.op import register as _register_op
from ..._pure.opmath import in_opmath
from ..._state import random as _random
from ..._state.tensor import Tensor
from ..._tape.args import check_inplace, commit_inplace, tensor_arg

_HIGHEST = lax.Precision.HIGHEST


def register(op_id: str, fn, **kwargs):
    """Register an nn op whose half-precision inputs are computed in float32."""
    return _register_op(op_id, in_opmath(fn), **kwargs)


# The nn families' name for the Tensor argument check every op front end makes.
_tensor = tensor_arg


def _ntuple(value, n: int, name: str = "argument") -> tuple:
    """An int or a sequence as a tuple of `n` ints (PyTorch's _pair/_triple)."""
    if isinstance(value, Tensor):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        if len(value) == 1:
            return tuple(int(value[0]) for _ in range(n))
        if len(value) != n:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {n}")
        return tuple(int(v) for v in value)
    return (int(value),) * n


def _same_dtype(*tensors, floating: bool = True):
    """Promote several tensors to one dtype (PyTorch's binary-op promotion); `floating`: an
    integral result becomes the default float (else it stays, for the op's dtype rules)."""
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = _dtypes.promote_types(dtype, t.dtype)
    if floating and not (dtype.is_floating_point or dtype.is_complex):
        dtype = _dtypes.get_default_dtype()
    return [t if t.dtype is dtype else t.to(dtype) for t in tensors]


def _key_array():
    """Raw key data for one random draw from the global generator (an op input, not static)."""
    return _random.default_generator.next_key()


def _is_key(source) -> bool:
    """Whether a random op's `source` input is key data (uint32), not PyTorch's noise."""
    return jnp.issubdtype(source.dtype, jnp.unsignedinteger)


def _inplace_result(input: Tensor, result: Tensor, inplace: bool) -> Tensor:
    if not inplace:
        return result
    check_inplace(input)
    return commit_inplace(input, result)
