"""Ops fused into one XLA program that round as each op's own program rounds.

XLA:CPU compiles every program with floating-point contraction on: a multiply whose result
feeds an add in the same loop becomes one fused multiply-add, rounded once where two ops run
one by one (and PyTorch) round twice. One op's program may contract inside the op; a program
of many ops (a deferred run) must not contract across them, or its values are not the ops'.
`apart(x, key)` passes an op's output through an integer XOR with the program's runtime
zero (`key`, an input, so no pass can fold it): every bit stays as it was (subnormals too,
which float arithmetic would flush to zero on XLA:CPU), and neither XLA's simplifier nor LLVM
sees a multiply behind it, so nothing contracts across the seam. Turning XLA's fusion off,
the other way to keep each op's rounding, writes and reads every intermediate array.
Only an output that may be a product needs a seam (`needs_seam`, read from the op's jaxpr):
an add, a maximum, a convolution's or matrix product's result gives the next op's add nothing
to contract. Seams elsewhere cost: around a ResNet's convolutions and batch norms they kept
XLA from its layouts and fusions (its eager step 256 ms seamed everywhere, 161 so), and they
took 1.5 s of the 4.0 s nanoGPT's forward and backward took to compile.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .jax_internals import Literal

_BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}  # a float's size -> its bits


def apart(x, key):
    """`x` (a traced array), bit for bit, behind a seam XLA cannot contract a multiply-add
    across; `key` is the program's runtime zero (`key()`). Other than float and complex
    values are returned as they are."""
    dtype = x.dtype
    if jnp.issubdtype(dtype, jnp.complexfloating):
        return lax.complex(apart(lax.real(x), key), apart(lax.imag(x), key))
    if not jnp.issubdtype(dtype, jnp.floating):
        return x
    bits = _BITS[dtype.itemsize]
    return lax.bitcast_convert_type(lax.bitcast_convert_type(x, bits) ^ key.astype(bits), dtype)


@functools.cache
def key() -> jax.Array:
    """The uint32 zero a program of many ops takes as its `key` (made at the first use, so the
    import starts no backend; concrete even where that use is inside a trace)."""
    with jax.ensure_compile_time_eval():
        return jnp.zeros((), np.uint32)


# Primitives whose result is no product: LLVM contracts a multiply into an add that takes it,
# never an add, a maximum, a library call's result (a matrix product, a convolution) or a sum.
_NO_PRODUCT = frozenset(
    {
        "add",
        "sub",
        "max",
        "min",
        "dot_general",
        "conv_general_dilated",
        "reduce_sum",
        "reduce_max",
        "reduce_min",
    }
)
# Primitives that move or convert values without arithmetic of their own (a negated product
# still contracts, as a fused negative multiply-add): their result is a product where an
# input is.
_MOVES = frozenset(
    {
        "reshape",
        "broadcast_in_dim",
        "transpose",
        "squeeze",
        "expand_dims",
        "copy",
        "copy_p",
        "convert_element_type",
        "neg",
        "slice",
        "concatenate",
        "pad",
        "select_n",
        "stop_gradient",
    }
)


def needs_seam(closed) -> tuple:
    """Per output of `closed` (an op's ClosedJaxpr), whether it may be a product that a later
    op's add could contract with: only those need a seam. An output made from the op's inputs,
    literals or `_NO_PRODUCT` primitives through `_MOVES` (inside calls too: a `custom_jvp`, a
    nested `jit`) is none."""
    return _products(closed.jaxpr, [False] * len(closed.jaxpr.invars))


def _products(jaxpr, inputs: list) -> tuple:
    """Whether each output of `jaxpr` may be a product, its inputs' answers given."""
    known = dict(zip(jaxpr.invars, inputs))

    def product(var) -> bool:
        if isinstance(var, Literal) or not jnp.issubdtype(var.aval.dtype, jnp.inexact):
            return False  # (a literal, a mask, an index)
        return known.get(var, False)

    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        if name in _NO_PRODUCT:
            outs = [False] * len(eqn.outvars)
        elif name in _MOVES:
            outs = [any(product(v) for v in eqn.invars)] * len(eqn.outvars)
        else:
            inner = _called(eqn)
            if inner is None:
                outs = [True] * len(eqn.outvars)
            else:
                outs = list(_products(inner, [product(v) for v in eqn.invars]))
        known.update(zip(eqn.outvars, outs))
    return tuple([product(v) for v in jaxpr.outvars])


# Primitives that call a jaxpr once on their own inputs (not a loop's body, whose carries
# would need their answers iterated to a fixed point).
_CALLS = frozenset(
    {"jit", "pjit", "closed_call", "custom_jvp_call", "custom_vjp_call", "checkpoint"}
)


def _called(eqn):
    """The jaxpr a call (`_CALLS`) runs on its own inputs, or None."""
    if eqn.primitive.name not in _CALLS:
        return None
    for param in eqn.params.values():
        inner = getattr(param, "jaxpr", param)  # (a ClosedJaxpr's)
        if (
            hasattr(inner, "eqns")
            and len(inner.invars) == len(eqn.invars)
            and len(inner.outvars) == len(eqn.outvars)
        ):
            return inner
    return None
