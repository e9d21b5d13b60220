"""torch.special's orthogonal polynomials of x and degree n (Chebyshev T/U/V/W and their
shifted forms, Hermite H/He, Laguerre L, Legendre P), with PyTorch's special cases: 0 for
n < 0, closed values at the interval's ends, the trigonometric form for large n inside it,
the three-term recurrence otherwise. The degree is truncated to an integer; as in PyTorch
none is differentiable."""

from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp
from jax import lax

from .._pure import dtypes as _dtypes
from .._pure.dtypes import float64
from .._pure.op import register
from .._state.tensor import Tensor
from .._tape.args import tensor_arg
from .._tape.record import apply
from .elementwise import _float_dtype
from .factories import tensor
from .out_arg import takes_out

__all__ = [
    "chebyshev_polynomial_t",
    "chebyshev_polynomial_u",
    "chebyshev_polynomial_v",
    "chebyshev_polynomial_w",
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
    "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
]


def _recurrence(step, first, x, n):
    """The degree-n value of a three-term recurrence started at P_0 = 1 and P_1 = `first`:
    `step(i, p, q)` gives P_{i+1} from P_{i-1} = p and P_i = q; a loop up to the largest n."""
    one = jnp.ones_like(x)
    steps = jnp.max(jnp.where(n >= 2, n - 1, 0), initial=0)

    def body(state):
        i, p, q = state
        active = i <= n - 1
        r = step(i.astype(x.dtype), p, q)
        return i + 1, jnp.where(active, q, p), jnp.where(active, r, q)

    _, _, q = lax.while_loop(
        lambda state: state[0] <= steps, body, (jnp.ones((), n.dtype), one, first)
    )
    return jnp.where(n == 0, one, q)


class _Chebyshev(NamedTuple):
    """A Chebyshev kind: P_1(y), the value at y = 1 and at y = -1 (of m = n as float), and
    its closed form in theta = acos(y) with the value where that form divides by zero."""

    first: object
    at_one: object
    at_minus_one: object
    closed: object
    threshold: int


def _kind_t():
    return _Chebyshev(
        first=lambda y: y,
        at_one=lambda m: jnp.ones_like(m),
        at_minus_one=lambda m: jnp.where(m % 2 == 0, 1.0, -1.0),
        closed=lambda y, m, theta: jnp.cos(m * theta),
        threshold=6,
    )


def _kind_u(threshold: int = 8):
    def closed(y, m, theta):
        s = jnp.sin(theta)
        safe = jnp.where(s != 0, s, 1.0)
        return jnp.where(
            s != 0, jnp.sin((m + 1) * theta) / safe, (m + 1) * jnp.cos((m + 1) * theta) / y
        )

    return _Chebyshev(
        first=lambda y: y + y,
        at_one=lambda m: m + 1,
        at_minus_one=lambda m: jnp.where(m % 2 == 0, m + 1, -(m + 1)),
        closed=closed,
        threshold=threshold,
    )


def _kind_v(threshold: int = 8):
    def closed(y, m, theta):
        half = theta / 2
        odd_edge = jnp.where(m % 2 == 0, m + m + 1, -(m + m + 1))
        return jnp.where(jnp.sin(half) != 1, jnp.cos((m + 0.5) * theta) / jnp.cos(half), odd_edge)

    return _Chebyshev(
        first=lambda y: y + y - 1,
        at_one=lambda m: jnp.ones_like(m),
        at_minus_one=lambda m: jnp.where(m % 2 == 0, m + m + 1, -(m + m + 1)),
        closed=closed,
        threshold=threshold,
    )


def _kind_w(threshold: int = 8):
    def closed(y, m, theta):
        half = theta / 2
        edge = jnp.where(y > 0, m + m + 1, jnp.where(m % 2 == 0, 1.0, -1.0))
        s = jnp.sin(half)
        safe = jnp.where(s != 0, s, 1.0)
        return jnp.where(jnp.cos(half) != 1, jnp.sin((m + 0.5) * theta) / safe, edge)

    return _Chebyshev(
        first=lambda y: y + y + 1,
        at_one=lambda m: m + m + 1,
        at_minus_one=lambda m: jnp.where(m % 2 == 0, 1.0, -1.0),
        closed=closed,
        threshold=threshold,
    )


def _chebyshev_fn(kind: _Chebyshev, shifted: bool):
    def fn(x, n):
        y = x + x - 1 if shifted else x
        degree = jnp.trunc(n).astype(jnp.int64) if jnp.issubdtype(n.dtype, jnp.floating) else n
        degree = degree.astype(jnp.int64)
        y, degree = jnp.broadcast_arrays(y, degree)
        m = degree.astype(y.dtype)
        inside = jnp.abs(y) < 1
        theta = jnp.arccos(jnp.where(inside, y, 0.0))
        recurred = _recurrence(
            lambda i, p, q: (y + y) * q - p,
            kind.first(y),
            y,
            jnp.where((degree > kind.threshold) & inside, 0, degree),
        )
        ends = (x == 1, x == 0) if shifted else (jnp.abs(y) == 1, jnp.abs(y) == 1)
        value = jnp.where((degree > kind.threshold) & inside, kind.closed(y, m, theta), recurred)
        if shifted:
            value = jnp.where(ends[1], kind.at_minus_one(m), value)
            value = jnp.where(ends[0], kind.at_one(m), value)
        else:
            edge = jnp.where(y > 0, kind.at_one(m), kind.at_minus_one(m))
            value = jnp.where(ends[0], edge, value)
        return jnp.where(degree < 0, jnp.zeros_like(value), value).astype(y.dtype)

    return fn


def _recurrence_fn(first, step, edge=None, limit=False):
    """A polynomial by its recurrence: P_1 = first(x), step(x, i, p, q); `edge` (a mask and
    a value of x) where a closed value replaces it; `limit`: NaN beyond Hermite's limit."""

    def fn(x, n):
        degree = jnp.trunc(n).astype(jnp.int64) if jnp.issubdtype(n.dtype, jnp.floating) else n
        degree = degree.astype(jnp.int64)
        x, degree = jnp.broadcast_arrays(x, degree)
        value = _recurrence(lambda i, p, q: step(x, i, p, q), first(x), x, degree)
        if limit:
            bound = 128 if x.dtype == jnp.float32 else 512
            value = jnp.where(degree > bound, jnp.nan, value)
        if edge is not None:
            mask, closed = edge(x, degree)
            value = jnp.where(mask & (degree >= 0), closed, value)
        return jnp.where(degree < 0, jnp.zeros_like(value), value).astype(x.dtype)

    return fn


def _legendre_edge(x, degree):
    return jnp.abs(x) == 1, jnp.where((x > 0) | (degree % 2 == 0), 1.0, -1.0)


_FUNCTIONS = {
    "chebyshev_polynomial_t": _chebyshev_fn(_kind_t(), False),
    "chebyshev_polynomial_u": _chebyshev_fn(_kind_u(), False),
    "chebyshev_polynomial_v": _chebyshev_fn(_kind_v(), False),
    "chebyshev_polynomial_w": _chebyshev_fn(_kind_w(), False),
    "shifted_chebyshev_polynomial_t": _chebyshev_fn(_kind_t(), True),
    "shifted_chebyshev_polynomial_u": _chebyshev_fn(_kind_u(6), True),
    "shifted_chebyshev_polynomial_v": _chebyshev_fn(_kind_v(6), True),
    "shifted_chebyshev_polynomial_w": _chebyshev_fn(_kind_w(4), True),
    "hermite_polynomial_h": _recurrence_fn(
        lambda x: x + x, lambda x, i, p, q: (x + x) * q - (i + i) * p, limit=True
    ),
    "hermite_polynomial_he": _recurrence_fn(
        lambda x: x, lambda x, i, p, q: x * q - i * p, limit=True
    ),
    "laguerre_polynomial_l": _recurrence_fn(
        lambda x: 1 - x,
        lambda x, i, p, q: (((i + i) + (1 - x)) * q - i * p) / (i + 1),
        edge=lambda x, degree: (x == 0, jnp.ones_like(x)),
    ),
    "legendre_polynomial_p": _recurrence_fn(
        lambda x: x,
        lambda x, i, p, q: ((i + i + 1) * x * q - i * p) / (i + 1),
        edge=_legendre_edge,
    ),
}


def _polynomial(name: str):
    fn = _FUNCTIONS[name]
    op = register(
        f"special.{name}",
        lambda x, n, *, dtype: fn(x.astype(dtype), n.astype(dtype)),
        node=f"Special{name}Backward",
        differentiable=False,
    )

    def polynomial(input, n):
        """A Python number takes part as PyTorch's wrapped numbers do: in the promotion as
        a number, in the computation at the result dtype."""
        if not isinstance(input, Tensor) and not isinstance(n, Tensor):
            tensor_arg(input, name)
        dtype = _float_dtype(_dtypes.result_type(input, n))
        x, degree = (v if isinstance(v, Tensor) else tensor(v, dtype=float64) for v in (input, n))
        return apply(op, x, degree, dtype=dtype.jax)

    polynomial.__name__ = polynomial.__qualname__ = name
    polynomial.__doc__ = f"torch.special.{name}(input, n): the degree-n polynomial at input."
    return takes_out(polynomial)


chebyshev_polynomial_t = _polynomial("chebyshev_polynomial_t")
chebyshev_polynomial_u = _polynomial("chebyshev_polynomial_u")
chebyshev_polynomial_v = _polynomial("chebyshev_polynomial_v")
chebyshev_polynomial_w = _polynomial("chebyshev_polynomial_w")
shifted_chebyshev_polynomial_t = _polynomial("shifted_chebyshev_polynomial_t")
shifted_chebyshev_polynomial_u = _polynomial("shifted_chebyshev_polynomial_u")
shifted_chebyshev_polynomial_v = _polynomial("shifted_chebyshev_polynomial_v")
shifted_chebyshev_polynomial_w = _polynomial("shifted_chebyshev_polynomial_w")
hermite_polynomial_h = _polynomial("hermite_polynomial_h")
hermite_polynomial_he = _polynomial("hermite_polynomial_he")
laguerre_polynomial_l = _polynomial("laguerre_polynomial_l")
legendre_polynomial_p = _polynomial("legendre_polynomial_p")
