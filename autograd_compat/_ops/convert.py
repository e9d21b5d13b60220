"""Conversions and tensor properties: to/cpu/cuda/type_as and the dtype-cast methods
(float(), long()...), real/imag/conj, is_signed, get_device, and
the is_cpu/itemsize/nbytes properties.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .._pure import device as _device
from .._pure import dtypes as _dtypes
from .._pure import float8
from .._pure.op import register
from .._state.tensor import META_NO_DATA, MetaTensor, MetaValueError, Tensor
from .._tape.args import tensor_arg
from .._tape.autocast import CAST as _CAST
from .._tape.record import apply
from . import factories as _factories

__all__ = ["conj", "imag", "is_signed", "real"]


def type_as(self: Tensor, other: Tensor) -> Tensor:
    """This tensor cast to `other`'s dtype (itself when it already has it)."""
    if not isinstance(other, Tensor):
        raise TypeError(
            f"type_as(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}"
        )
    return self.to(other.dtype)


_TO_DEVICE = register(
    "to.device",
    lambda x, *, device, dtype: jax.device_put(float8.convert(x, dtype), device),
    node="ToCopyBackward0",
    saves="none",
)


def _parse_to_args(self, args, kwargs):
    dtype, device = kwargs.pop("dtype", None), kwargs.pop("device", None)
    kwargs.pop("non_blocking", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
    flags = []  # non_blocking, copy: the positional bools after the dtype/device/other
    for arg in args:
        if arg is None:  # `to(None)`, `to(None, None)`: the overload's device and dtype unset
            continue
        if isinstance(arg, Tensor):
            dtype, device = arg.dtype, arg.device
        elif isinstance(arg, (_dtypes.dtype, type, np.dtype)):
            dtype = arg
        elif isinstance(arg, bool):
            flags.append(arg)
        elif isinstance(arg, (str, int, _device.device)):
            device = arg
        else:
            raise TypeError(f"to() received an invalid argument of type {type(arg).__name__}")
    if len(flags) > 1:
        copy = flags[1]
    return dtype, device, copy


def to(self, *args, **kwargs):
    """Cast to a dtype and/or move to a device; returns self when nothing changes."""
    dtype, device, copy = _parse_to_args(self, args, dict(kwargs))
    dtype = _dtypes.as_dtype(dtype) if dtype is not None else self.dtype
    if isinstance(self, MetaTensor) or _factories.is_meta_device(device):
        return _to_meta(self, dtype, device, copy)
    if device is not None:
        target = _device.to_jax(device)
        if _device.from_jax(target) != self.device or copy:
            return apply(_TO_DEVICE, self, device=target, dtype=dtype.jax)
    if dtype is self.dtype:
        return self.clone() if copy else self
    return apply(_CAST, self, dtype=dtype.jax)


def _to_meta(self: Tensor, dtype: _dtypes.dtype, device, copy: bool) -> Tensor:
    """`to` from or onto the meta device: a meta tensor of the new dtype (self when nothing
    changes); a meta tensor's data cannot leave it, there is none (PyTorch's error)."""
    if isinstance(self, MetaTensor):
        if device is not None and not _factories.is_meta_device(device):
            raise MetaValueError(META_NO_DATA)
        if dtype is self.dtype and not copy:
            return self
    return _factories.meta(tuple(self.shape), dtype, self.requires_grad)


def _cast_method(d):
    def cast(self, memory_format=None):
        return to(self, d)

    cast.__name__ = d.name
    return cast


def chalf(self: Tensor, memory_format=None) -> Tensor:
    """`Tensor.chalf()`: PyTorch's complex32 (two float16 halves) has no JAX dtype to hold it,
    so the cast raises, naming the dtypes that exist."""
    raise NotImplementedError(
        "Tensor.chalf: torch.complex32 (torch.chalf) is not yet supported by autograd_compat: "
        "JAX has no complex half dtype; use Tensor.cfloat() (complex64) instead"
    )


def cpu(self: Tensor, memory_format=None) -> Tensor:
    """`Tensor.cpu()`: this tensor on the CPU."""
    return to(self, "cpu")


def cuda(self: Tensor, device=None, non_blocking: bool = False, memory_format=None) -> Tensor:
    """`Tensor.cuda()`: this tensor on a CUDA device (the first one, or `device`)."""
    if device is None:
        device = "cuda"
    elif isinstance(device, int):
        device = _device.device("cuda", device)
    return to(self, device)


# ----------------------------------------------------------------------------- properties
def is_signed(input) -> bool:
    """True unless the dtype is unsigned (uint8) or bool."""
    return input.dtype not in (_dtypes.uint8, _dtypes.bool)


def _get_device(self) -> int:
    """-1: every tensor lives on the CPU as far as PyTorch code can tell."""
    return -1


_REAL = register("real", jnp.real, node="RealBackward0")
_IMAG = register("imag", jnp.imag, node="ImagBackward0")


def real(input):
    """The real part: `input` itself for real tensors."""
    tensor_arg(input, "real")
    return apply(_REAL, input) if input.dtype.is_complex else input


def imag(input):
    """The imaginary part; real tensors raise, as in PyTorch."""
    tensor_arg(input, "imag")
    if not input.dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return apply(_IMAG, input)


_CONJ = register("conj", jnp.conj, node="ConjBackward0", saves="none")


def conj(input):
    """The complex conjugate: `input` itself for real tensors."""
    tensor_arg(input, "conj")
    return apply(_CONJ, input) if input.dtype.is_complex else input


def _is_cpu(self: Tensor) -> bool:
    """`Tensor.is_cpu`: every tensor here lives on the host or is placed by JAX."""
    return True


def _itemsize(self: Tensor) -> int:
    """`Tensor.itemsize`: bytes per element."""
    return self.element_size()


def _nbytes(self: Tensor) -> int:
    """`Tensor.nbytes`: bytes of all elements."""
    return self.numel() * self.element_size()
