"""torch.special's Bessel and Airy functions: the modified Bessel functions of the first kind
I0 and I1 (JAX's), the spherical Bessel function j0, and J0, J1, Y0, Y1, K0, K1, the scaled
K0, K1 and Ai by PyTorch's Cephes approximations (`cephes_bessel`). As in PyTorch, none is
differentiable."""

from __future__ import annotations

import math

import jax.numpy as jnp
import jax.scipy.special as jss

from .._pure.op import register
from .._tape.args import tensor_arg
from .._tape.record import apply
from . import cephes_bessel
from .out_arg import takes_out
from .unary import _cast_unary, _float_dtype

__all__ = [
    "airy_ai",
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "modified_bessel_i0",
    "modified_bessel_i1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "spherical_bessel_j0",
]

# sin(x)/x = sum_k (-1)^k x^(2k) / (2k + 1)!, the first seven terms, used for |x| < 1/2
_SINC_SERIES = tuple((-1) ** k / math.factorial(2 * k + 1) for k in range(7))


def _spherical_j0(x):
    """sin(x) / x: its Taylor series near 0 (where the quotient loses digits), 0 at +-inf."""
    square = x * x
    series = jnp.zeros_like(x)
    for coefficient in reversed(_SINC_SERIES):
        series = series * square + coefficient
    small = jnp.abs(x) < 0.5
    quotient = jnp.sin(x) / jnp.where(small, jnp.ones_like(x), x)
    value = jnp.where(small, series, quotient)
    return jnp.where(jnp.isinf(x), jnp.zeros_like(x), value)


def _special_unary(name: str, fn):
    op = register(
        f"special.{name}", _cast_unary(fn), node=f"Special{name}Backward", differentiable=False
    )

    def unary(input):
        tensor_arg(input, name)
        return apply(op, input, dtype=_float_dtype(input.dtype).jax)

    unary.__name__ = unary.__qualname__ = name
    unary.__doc__ = f"torch.special.{name}: elementwise, not differentiable (as in PyTorch)."
    return takes_out(unary)


modified_bessel_i0 = _special_unary("modified_bessel_i0", jss.i0)
modified_bessel_i1 = _special_unary("modified_bessel_i1", jss.i1)
spherical_bessel_j0 = _special_unary("spherical_bessel_j0", _spherical_j0)
airy_ai = _special_unary("airy_ai", cephes_bessel.airy_ai)
bessel_j0 = _special_unary("bessel_j0", cephes_bessel.bessel_j0)
bessel_j1 = _special_unary("bessel_j1", cephes_bessel.bessel_j1)
bessel_y0 = _special_unary("bessel_y0", cephes_bessel.bessel_y0)
bessel_y1 = _special_unary("bessel_y1", cephes_bessel.bessel_y1)
modified_bessel_k0 = _special_unary("modified_bessel_k0", cephes_bessel.modified_bessel_k0)
modified_bessel_k1 = _special_unary("modified_bessel_k1", cephes_bessel.modified_bessel_k1)
scaled_modified_bessel_k0 = _special_unary(
    "scaled_modified_bessel_k0", cephes_bessel.scaled_modified_bessel_k0
)
scaled_modified_bessel_k1 = _special_unary(
    "scaled_modified_bessel_k1", cephes_bessel.scaled_modified_bessel_k1
)
