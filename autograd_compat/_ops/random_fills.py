"""The in-place fills of the Cauchy, log-normal and geometric distributions (`cauchy_`,
`log_normal_`, `geometric_`).

Eager fills on the CPU backend are PyTorch's values: `_state/draws.py` runs its CPU kernels'
transforms in float64 on the generator's mt19937 outputs. Traced fills and accelerator
backends transform uniforms or normals from a JAX key of the generator.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from .._pure import dtypes as _dtypes
from .._pure.dtype_rules import cpp_name
from .._state import draws as _draws
from .._state import random as _random
from .._state.tensor import Tensor
from .._tape.args import scalar_type_name
from .random import _fill_random, _from_host, _normal, _stored_dtype, _uniform, host_generator


def _values(flat: np.ndarray, shape: tuple, dtype: _dtypes.dtype):
    """float64 draws as `dtype` (2-byte floats through float32, as C++'s Half(float) and
    BFloat16(float) constructors round them)."""
    if dtype.itemsize == 2 and dtype.is_floating_point:
        flat = flat.astype(np.float32)
    return _from_host(flat, shape, dtype)


def _require(self: Tensor, kernel: str, integers: bool) -> None:
    """PyTorch's dispatch error for a dtype the kernel has no case for."""
    d = self.dtype
    if d.is_complex or d is _dtypes.bool or not (integers or d.is_floating_point):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type_name(d)}'")


def _fill(self: Tensor, node: str, generator, any_dtype: bool, host, traced) -> Tensor:
    """Fill `self` (recorded as `node`) with `host(generator, n)`'s float64 draws where the
    draw is PyTorch's, else with `traced(key, shape)` (`any_dtype`: the host draws for integer
    dtypes too)."""
    shape, dtype = tuple(self.shape), _stored_dtype(self)
    g = host_generator(generator, None if any_dtype else dtype)
    if g is None:
        sample = traced(_random.key(generator), shape)
    else:
        sample = _values(host(g, math.prod(shape)), shape, dtype)
    return _fill_random(self, node, sample)


def cauchy_(self: Tensor, median: float = 0, sigma: float = 1, *, generator=None) -> Tensor:
    """Fill with samples of the Cauchy distribution of `median` and scale `sigma` in place."""
    if not self.dtype.is_floating_point:
        raise RuntimeError(
            "Cauchy distribution is a continuous probability distribution. dtype must be a "
            f"floating point but you specified {cpp_name(self._stored.dtype)}"
        )
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")

    def traced(key, shape):
        return median + sigma * jnp.tan(math.pi * (_uniform(key, shape, jnp.float64) - 0.5))

    def host(g, n):
        return _draws.cauchy(g, n, median, sigma)

    return _fill(self, "CauchyBackward0", generator, False, host, traced)


def log_normal_(self: Tensor, mean: float = 1, std: float = 2, *, generator=None) -> Tensor:
    """Fill with samples whose logarithm is N(mean, std**2), in place."""
    _require(self, "log_normal_cpu", integers=False)
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")

    def traced(key, shape):
        return jnp.exp(_normal(key, shape, jnp.float64) * std + mean)

    def host(g, n):
        return _draws.log_normal(g, n, mean, std)

    return _fill(self, "LogNormalBackward0", generator, False, host, traced)


def geometric_(self: Tensor, p: float, *, generator=None) -> Tensor:
    """Fill with the number of Bernoulli(p) trials up to the first success, in place (any
    real dtype but bool)."""
    _require(self, "geometric_cpu", integers=True)
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")

    def traced(key, shape):
        return jnp.ceil(jnp.log(_uniform(key, shape, jnp.float64)) / math.log1p(-p))

    def host(g, n):
        return _draws.geometric(g, n, p)

    return _fill(self, "GeometricBackward0", generator, True, host, traced)
