"""torch._C._nn: `_parse_to`, the parser of `Tensor.to`/`Module.to` arguments."""

from __future__ import annotations

from typing import NamedTuple

from .._pure import device as _device
from .._pure import dtypes as _dtypes
from .._pure.layouts import memory_format
from .._state.tensor import Tensor

__all__ = ["_parse_to"]

_OVERLOADS = (
    "(torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, "
    "bool copy = False, *, torch.memory_format memory_format = None)",
    "(torch.dtype dtype, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)",
    "(Tensor tensor, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)",
)
_TYPE_NAMES = {Tensor: "Tensor", _dtypes.dtype: "torch.dtype", _device.device: "torch.device"}


class ParsedTo(NamedTuple):
    """What a `.to(...)` call asks for."""

    device: _device.device | None
    dtype: _dtypes.dtype | None
    non_blocking: bool
    memory_format: memory_format | None


def _is_device(value) -> bool:
    return value is None or isinstance(value, (str, _device.device)) or type(value) is int


def _is_dtype(value, optional: bool) -> bool:
    return (optional and value is None) or isinstance(value, _dtypes.dtype)


def _fits_dtype(names: tuple, bound: dict) -> bool:
    """The `dtype` parameter (optional after a device, required alone) holds a dtype."""
    if names[0] == "tensor":
        return True
    return _is_dtype(bound.get("dtype"), optional=names[0] == "device")


def _bind(names: tuple, args: tuple, kwargs: dict) -> dict | None:
    """`args` and `kwargs` bound to the parameter `names`, or None if they do not fit."""
    if len(args) > len(names) or set(kwargs) - set(names):
        return None
    bound = dict(zip(names, args))
    if set(bound) & set(kwargs):
        return None
    return {**bound, **kwargs}


def _match(args: tuple, kwargs: dict) -> dict | None:
    """The first of PyTorch's three `to` overloads that the arguments fit, as a dict."""
    flags = ("non_blocking", "copy")
    candidates = (
        (("device", "dtype", *flags), lambda b: _is_device(b.get("device"))),
        (("dtype", *flags), lambda b: True),
        (("tensor", *flags), lambda b: isinstance(b.get("tensor"), Tensor)),
    )
    for names, fits in candidates:
        bound = _bind(names, args, kwargs)
        if (
            bound is not None
            and fits(bound)
            and _fits_dtype(names, bound)
            and all(type(bound.get(flag, False)) is bool for flag in flags)
        ):
            return bound
    return None


def _type_name(value) -> str:
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def _invalid(args: tuple, kwargs: dict) -> TypeError:
    got = ", ".join(_type_name(a) for a in args)
    got += (", " if args and kwargs else "") + "".join(
        f"{k}={_type_name(v)}, " for k, v in kwargs.items()
    )
    expected = "".join(f" * {overload}\n" for overload in _OVERLOADS)
    return TypeError(
        f"to() received an invalid combination of arguments - got ({got}), but expected one "
        f"of:\n{expected}"
    )


def _parse_to(*args, **kwargs) -> ParsedTo:
    """(device, dtype, non_blocking, memory_format) of a `.to(*args, **kwargs)` call, by
    PyTorch's overloads: `to(device=None, dtype=None, non_blocking=False, copy=False)`,
    `to(dtype, non_blocking=False, copy=False)` and `to(tensor, non_blocking=False,
    copy=False)`, each with a keyword-only `memory_format`; `copy=True` is refused."""
    rest = dict(kwargs)
    layout = rest.pop("memory_format", None)
    bound = _match(args, rest)
    if bound is None or not (layout is None or isinstance(layout, memory_format)):
        raise _invalid(args, kwargs)
    if bound.get("copy", False):
        raise RuntimeError(".to() does not accept copy argument")
    if "tensor" in bound:
        device, dtype = bound["tensor"].device, bound["tensor"].dtype
    else:
        device, dtype = bound.get("device"), bound.get("dtype")
        device = None if device is None else _device.device(device)
    return ParsedTo(device, dtype, bound.get("non_blocking", False), layout)
