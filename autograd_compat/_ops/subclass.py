"""Tensor subclasses: `Tensor.__torch_function__` (the default that keeps a subclass through
ops), `as_subclass` and `_make_subclass`.

A user's subclass adds a `__dict__` to Tensor's slots, so a tensor cannot change into it:
`_rehome` moves a result's fields into a new object of the subclass, which takes the result's
place among the tensors sharing its memory.
"""

from __future__ import annotations

from .._state import torch_function as _tf
from .._state.tensor import _VALUE, MetaTensor, Tensor, meta_class
from .._tape.views import make_view
from .shape import _ALIAS, _apply_view

__all__: list[str] = []

_FIELDS = tuple(name for name in Tensor.__slots__ if name not in ("_value", "__weakref__"))


def _rehome(t: Tensor, cls: type) -> Tensor:
    """A `cls` object holding `t`'s value and autograd state, replacing `t` among the tensors
    sharing its memory (`t` is not used afterwards)."""
    if isinstance(t, MetaTensor):
        out = object.__new__(meta_class(cls))
        _VALUE.__set__(out, t._stored)
    else:
        out = object.__new__(cls)
        _VALUE.__set__(out, t._value)
    for name in _FIELDS:
        setattr(out, name, getattr(t, name))
    rec = t._storage
    if rec is not None:
        rec.buffer.members.discard(t)
        rec.buffer.members.add(out)
    return out


def as_subclass(self: Tensor, cls) -> Tensor:
    """A `cls` tensor over the same memory as `self`, attached to the graph through an alias
    (AliasBackward0), as PyTorch's."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(
            f"as_subclass(): argument 'cls' must be a subclass of torch.Tensor, not "
            f"{type(cls).__name__ if not isinstance(cls, type) else cls.__name__}"
        )
    view = make_view(self, _apply_view(_ALIAS, self, ()), ())
    return _rehome(view, cls)


def make_subclass(cls, data: Tensor, require_grad: bool = False, *args, **kwargs) -> Tensor:
    """`Tensor._make_subclass`: a `cls` leaf sharing `data`'s memory, cut from its graph."""
    out = _rehome(data.detach(), cls)
    out.requires_grad_(require_grad)
    return out


def default_nowrap_functions() -> set:
    """The accessors whose results the default `__torch_function__` returns as they are."""
    return {Tensor._base.__get__, Tensor.grad.__get__}


def convert(ret, cls):
    """PyTorch's `_convert`: Tensors in `ret` (also inside tuples and lists) as `cls`."""
    if cls is Tensor:
        return ret
    if isinstance(ret, Tensor) and not isinstance(ret, cls):
        return ret.as_subclass(cls)
    if isinstance(ret, (tuple, list)):
        return type(ret)(convert(item, cls) for item in ret)
    return ret


def torch_function(cls, func, types, args=(), kwargs=None):
    """Run `func` with subclass dispatch off and return its Tensors as `cls` (unless a type in
    `types` is not a superclass of `cls`: NotImplemented, so that type's handler runs)."""
    if kwargs is None:
        kwargs = {}
    if not all(issubclass(cls, t) for t in types):
        return NotImplemented
    with _tf.DisableTorchFunctionSubclass():
        ret = func(*args, **kwargs)
        if func in default_nowrap_functions():
            return ret
        return convert(ret, cls)
