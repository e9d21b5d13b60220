"""Host-side array creation for parameters, buffers and optimizer state, without compiling.

In JAX 0.10, `jnp.zeros`/`jnp.full`/`jnp.asarray(numpy)` compile one small XLA program per
new shape, and a model has many parameter shapes; building the values in numpy and moving
them with `jax.device_put` (a transfer, no compilation) keeps model construction cheap.
`rng` gives the draws that cannot be PyTorch's (in a trace, on an accelerator): numpy's PCG64
seeded from the generator, so `manual_seed` still makes them reproducible.
"""

from __future__ import annotations

import jax
import numpy as np

from .._ops import factories as _factories
from .._pure import device as _device
from .._pure import dtypes as _dtypes
from .._pure import sharding as _sharding
from .._state import random as _random
from .._state.tensor import Tensor


def numpy_dtype(dtype) -> np.dtype:
    """The numpy dtype of a torch dtype (default: the default float dtype)."""
    d = _dtypes.get_default_dtype() if dtype is None else _dtypes.as_dtype(dtype)
    return d.jax


def place(array: np.ndarray, device=None, like=None):
    """`array` as a jax.Array on `device` (or beside `like`), transferred, not compiled.

    On the default device the array is left uncommitted, like the arrays JAX creates itself,
    so jitted ops see one kind of argument and do not recompile for the other.
    """
    target = None
    if like is not None and not isinstance(like, jax.core.Tracer):
        devices = like.devices()
        target = next(iter(devices)) if len(devices) == 1 else None
    elif device is not None:
        target = _device.to_jax(device)
    if target is None or target == jax.local_devices()[0]:
        return _device.host_to_device(array)
    return jax.device_put(array, target)


def filled(shape, value, dtype=None, device=None) -> Tensor:
    """A new tensor of `shape` filled with `value`."""
    shape = tuple(shape) if isinstance(shape, (tuple, list)) else (int(shape),)
    if _factories.is_meta_device(device):
        return _factories.meta(shape, _dtypes.as_dtype(numpy_dtype(dtype)))
    return Tensor._wrap(place(np.full(shape, value, numpy_dtype(dtype)), device))


def zeros_like(tensor: Tensor, value=0) -> Tensor:
    """A tensor of `value`s with the shape, dtype, device and layout of `tensor` (an optimizer's
    state buffer), of its `_like_class` where its class names one (a DTensor's: DTensor)."""
    array = np.full(tuple(tensor.shape), value, tensor._stored.dtype)
    laid = _sharding.keep_sharding(place(array, like=tensor._value), tensor._value)
    return getattr(type(tensor), "_like_class", Tensor)._wrap(laid)


def rng(generator=None) -> np.random.Generator:
    """A numpy generator seeded by one draw from `generator` (the global one by default)."""
    source = generator if generator is not None else _random.default_generator
    return np.random.default_rng(np.asarray(source.next_key()).astype(np.uint64).tolist())


def empty(shape, device=None, dtype=None) -> Tensor:
    """An 'uninitialized' parameter value (zeros), as `torch.empty` for layers to fill."""
    return filled(shape, 0, dtype, device)
