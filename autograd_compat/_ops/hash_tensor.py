"""torch.hash_tensor: a uint64 fingerprint of a tensor's values, PyTorch's mode 0: every element
widened to its 64-bit counterpart (floats to float64, integers and bool to int64), its bits read
as uint64, and the bits xor-reduced over the given dims."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from .._pure.op import register
from .._pure.shapes import normalize_dims
from .._tape.args import tensor_arg
from .._tape.record import apply
from .out_arg import takes_out

__all__ = ["hash_tensor"]


def _hash(x, *, dims: tuple, keepdim: bool):
    """The xor of the 64-bit patterns of x's elements over `dims`, as uint64."""
    if jnp.issubdtype(x.dtype, jnp.floating):
        bits = lax.bitcast_convert_type(x.astype(jnp.float64), jnp.uint64)
    else:  # sign-extended: int64's bits read as uint64
        bits = x.astype(jnp.int64).astype(jnp.uint64)
    reduced = lax.reduce(bits, np.uint64(0), lax.bitwise_xor, dims)
    return jnp.expand_dims(reduced, dims) if keepdim else reduced


_HASH_TENSOR = register("hash_tensor", _hash, node="HashTensorBackward0", differentiable=False)


@takes_out
def hash_tensor(input, dim=(), *, keepdim: bool = False, mode: int = 0):
    """A uint64 hash of `input`'s elements over `dim` (an int or a list; all dims when empty):
    the xor of their bit patterns after widening floats to float64 and integers to int64.

    Example::

        >>> torch.hash_tensor(torch.tensor([1.5, -2.0]))
        tensor(18444492273895866368, dtype=torch.uint64)
    """
    tensor_arg(input, "hash_tensor")
    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
    written = () if dim is None else (dim,) if isinstance(dim, int) else tuple(dim)
    if not written and input.numel() == 0:
        raise RuntimeError(
            "hash_tensor: Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument."
        )
    dims = normalize_dims(written, input.ndim) if written else tuple(range(input.ndim))
    for d in written:
        if input.ndim and input.shape[d] == 0:
            raise IndexError(f"hash_tensor: Expected reduction dim {d} to have non-zero size.")
    return apply(_HASH_TENSOR, input, dims=dims, keepdim=bool(keepdim))
