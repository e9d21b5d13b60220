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


def cauchy_(self: Tensor, median: float = 0, sigma: float = 1, *, generator=None) -> Tensor:
    """Fill with samples of the Cauchy distribution of `median` and scale `sigma` in place."""
    if not self.dtype.is_floating_point:
        raise RuntimeError(
            "Cauchy distribution is a continuous probability distribution. dtype must be a "
            f"floating point but you specified {cpp_name(self._stored.dtype)}"
        )
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    shape, dtype = tuple(self.shape), _stored_dtype(self)
    g = host_generator(generator, dtype)
    if g is None:
        u = _uniform(_random.key(generator), shape, jnp.float64)
        sample = median + sigma * jnp.tan(math.pi * (u - 0.5))
    else:
        sample = _values(_draws.cauchy(g, math.prod(shape), median, sigma), shape, dtype)
    return _fill_random(self, "CauchyBackward0", sample)


def log_normal_(self: Tensor, mean: float = 1, std: float = 2, *, generator=None) -> Tensor:
    """Fill with samples whose logarithm is N(mean, std**2), in place."""
    _require(self, "log_normal_cpu", integers=False)
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    shape, dtype = tuple(self.shape), _stored_dtype(self)
    g = host_generator(generator, dtype)
    if g is None:
        sample = jnp.exp(_normal(_random.key(generator), shape, jnp.float64) * std + mean)
    else:
        sample = _values(_draws.log_normal(g, math.prod(shape), mean, std), shape, dtype)
    return _fill_random(self, "LogNormalBackward0", sample)


def geometric_(self: Tensor, p: float, *, generator=None) -> Tensor:
    """Fill with the number of Bernoulli(p) trials up to the first success, in place (any
    real dtype but bool)."""
    _require(self, "geometric_cpu", integers=True)
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    shape, dtype = tuple(self.shape), _stored_dtype(self)
    g = host_generator(generator)
    if g is None:
        u = _uniform(_random.key(generator), shape, jnp.float64)
        sample = jnp.ceil(jnp.log(u) / math.log1p(-p))
    else:
        sample = _values(_draws.geometric(g, math.prod(shape), p), shape, dtype)
    return _fill_random(self, "GeometricBackward0", sample)
