"""Item reads and writes of small CPU tensors on the host: `x[i] = v`, `N[i, j] += 1` and
`x[i].item()` in a Python loop, at numpy's cost rather than an XLA call's.

An item assignment by int indices of a Python number (or of a tensor of the target's dtype
and shape) into a CPU tensor that needs no graph (no requires_grad, no tangent, no trace or
other special mode: `modes.special`), owns its memory (no view; the only other live tensors
over it are views by int indices) and has at most `HOST_ELEMENTS` elements copies the
tensor's value to the host once (`HostArrayTensor`) and writes that copy in place, with
PyTorch's checks, casts and version counter bumps; its views by int indices become
`HostView`s, numpy views of the copy. A read by int indices (`x[i]`) of such a tensor is a
HostView too: a view in PyTorch's sense (its record is a member of the buffer) that sees
every write, whose `item()` reads it where it is. `+=`/`-=` of a Python number on such a
tensor or view (which moves its base to the host), of an integral or float32/float64 dtype,
is one numpy ufunc (which rounds as PyTorch's CPU kernel does). The first op that reads the
tensor's `_value` makes it a device array again.

Everything else (other indices and values, a tensor with other live views, big tensors,
other devices, traces) takes the op path, which raises PyTorch's errors. `x[i]` of a tensor
on the device stays the op path's deferred view: an op reading it pays no transfer.
"""

from __future__ import annotations

from typing import cast

import jax.numpy as jnp
import numpy as np

from .._pure import device as _device
from .._pure import dtypes as _dtypes
from .._pure.jax_internals import ArrayImpl
from .._pure.strides import plain_layout
from .._state import modes as _grad_mode
from .._state.modes import modes
from .._state.tensor import HostArrayTensor, HostTensor, HostView, LazyTensor, Tensor
from .views import DEFAULT, NO_GRAD, Alias, Buffer, RootOnRead

HOST_ELEMENTS = 1 << 16  # bigger tensors keep the op path: their copies would cost more
_EXACT = 2**53  # a Python number of at most this size converts through float64 exactly
_MOVABLE = frozenset({Tensor, HostTensor, LazyTensor})  # plain tensors a write may move
_PLAIN = frozenset({Tensor, HostTensor, LazyTensor, HostArrayTensor, HostView})
HOST_TYPES = frozenset({HostArrayTensor, HostView})  # what `x[i]` and `+=` may read on the host
_FLOAT8 = frozenset(np.dtype(d.jax) for d in _dtypes.FLOAT8)
_ARITHMETIC = frozenset(np.dtype(t) for t in "bBhHiIlLqQfd")  # numpy adds as PyTorch's CPU
_BOUNDS = {np.dtype(t): (np.iinfo(t).min, np.iinfo(t).max) for t in "bBhHiIlLqQ"}
_HALF_MAX = {
    np.dtype(d.jax): float(jnp.finfo(d.jax).max) for d in (_dtypes.float16, _dtypes.bfloat16)
}


class HostBuffer(RootOnRead):
    """The buffer of a `HostArrayTensor` that has views: the root value is the root tensor's
    host copy, made a device array (the buffer a plain `Buffer`) by the first read of
    `value` (a compiled call's state, `data_ptr()`, a write through another view)."""

    __slots__ = ()

    def _root_value(self):
        for member in self.members:
            if type(member) is HostArrayTensor:
                return member._value  # (the root: its read sets the buffer's value)
            if type(member) is HostView:  # (the root left: `x.data = y`) its host copy
                stored = member._stored
                value = _device.host_to_device(stored if stored.base is None else stored.base)
                self._set_root_value(value)
                return value
        raise RuntimeError("a host buffer has no live member")  # (a member holds the buffer)


def _needs_no_graph(t: Tensor) -> bool:
    """Whether a write or view of `t` records nothing in any mode (no requires_grad, no
    tangent, no trace or other special mode) and is allowed (no inference tensor)."""
    return not (modes.special or t._requires_grad or t._fw_grad is not None or t._is_inference)


def _base(view: Tensor) -> Tensor:
    """A HostView's base (its record, which every view has, names it)."""
    return cast(Alias, view._storage).base


def _host_copy(t: Tensor) -> np.ndarray | None:
    """The host copy `t` reads and writes: a HostArrayTensor's, or a numpy view of it (a
    HostView of one); None for any other tensor."""
    cls = type(t)
    if cls is HostArrayTensor:
        return t._stored
    if cls is HostView and type(_base(t)) is HostArrayTensor:
        return t._stored
    return None


def _host_views(t: Tensor) -> list | None:
    """The other live tensors over `t`'s memory, where `t` is its root and each is an item
    view of it (a HostView, or a view by int indices that needs no graph, which a move to the
    host makes one); else None."""
    rec = t._storage
    if rec is None:
        return []
    if rec.spec or rec.base is not None:
        return None
    views = []
    for member in rec.buffer.members:
        if member is not t:
            if not _item_view(member, t):
                return None
            views.append(member)
    return views


def _item_view(view: Tensor, root: Tensor) -> bool:
    """Whether `view` is a view of `root` by int indices (a HostView, or a plain one) that
    needs no graph."""
    rec = cast(Alias, view._storage)
    if type(view) is not HostView and type(view) not in _MOVABLE:
        return False
    if rec.base is not root or not _needs_no_graph(view):
        return False
    for op in rec.spec:
        if op[0] != "select" or op[1] != 0:
            return False
    return True


def _device_array(t: Tensor):
    """`t`'s value where `t` may be read or written on the host: a small uncommitted CPU
    device array (computed, for a deferred op's result) of a root whose memory no tensor but
    its item views shares; else None."""
    if type(t) not in _MOVABLE or t._stored.size > HOST_ELEMENTS or _host_views(t) is None:
        return None
    if t._stored.dtype in _FLOAT8 or not _device.host_is_default():
        return None
    value = t._value
    if type(value) is not ArrayImpl or value.committed:
        return None
    return value


def _to_host(t: Tensor) -> np.ndarray | None:
    """Make root `t` a HostArrayTensor, its HostViews numpy views of its new host copy, and
    return the copy; None where `t` must stay as it is."""
    if not _needs_no_graph(t):
        return None
    value = _device_array(t)
    if value is None:
        return None
    array = np.array(value)
    for view in _host_views(t) or ():  # (the slot, then the class, no call between)
        view._stored = array[_positions(view._storage.spec)]
        view.__class__ = HostView
    rec = t._storage
    if rec is not None:
        rec.buffer.pinned = None  # (`data_ptr()`'s address is the old value's)
        rec.buffer.__class__ = HostBuffer
    t._value = array  # (t is a plain Tensor now: the slot, then the class, no call between)
    t.__class__ = HostArrayTensor
    return array


def _positions(spec: tuple) -> tuple:
    """The numpy index of a HostView's elements (its spec: selects from the root)."""
    key = []
    for op in spec:
        key.append(op[2])
    return (*key, ...)


def writable(t: Tensor) -> np.ndarray | None:
    """The host copy an item write into `t` (a root, or an item view of one) writes, made by
    the first write; None where the op path must write it."""
    if not _needs_no_graph(t):
        return None
    array = _host_copy(t)
    if array is not None:
        return array
    rec = t._storage
    if rec is None or rec.base is None:
        return _to_host(t)
    if _to_host(rec.base) is None or type(t) is not HostView:
        return None
    return t._stored


def _index(t: Tensor, index) -> tuple | None:
    """A lone int or a tuple of ints (which numpy and PyTorch index alike), as a tuple of at
    most `t.ndim` ints; None for anything else."""
    kind = type(index)
    ndim = t._stored.ndim
    if kind is int:
        return (index,) if ndim else None
    if kind is not tuple or not index or len(index) > ndim:
        return None
    for item in index:
        if type(item) is not int:
            return None
    return index


def _scalar(value, dtype: np.dtype):
    """`value`, a Python number, as an element of `dtype` is assigned (PyTorch's overflow
    errors), or None where numpy's conversion could differ from the op path's."""
    if type(value) is not bool and not -_EXACT <= value <= _EXACT:
        return None  # (NaN goes on: fit_scalar raises PyTorch's error for integral dtypes)
    d = _dtypes.from_jax(dtype)
    if d in _dtypes.FLOAT8 or d.is_complex:
        return None
    limit = _HALF_MAX.get(dtype)
    if limit is not None and limit < abs(value) < np.inf:
        return None  # (numpy's cast to inf warns: the op path's conversion)
    return _dtypes.fit_scalar(value, d)


def _tensor_source(value: Tensor, dtype: np.dtype, shape: tuple, target: Tensor):
    """A tensor value's elements on the host where it assigns as a plain copy (same dtype and
    shape, no graph, no other elements of the target's memory), else None."""
    if type(value) not in _PLAIN or value._requires_grad or value._fw_grad is not None:
        return None
    stored = value._stored
    if stored.dtype != dtype or stored.shape != shape:
        return None
    rec = value._storage
    if rec is not None and stored.ndim and target._storage is not None:
        if rec.buffer is target._storage.buffer:  # (PyTorch checks partial overlaps)
            return None
    if type(stored) is np.ndarray:
        return stored
    array = value._value
    return np.asarray(array) if type(array) is ArrayImpl else None


def set_item(t: Tensor, index, value) -> bool:
    """`t[index] = value` on the host; False where the op path must do it (nothing is
    changed then but, perhaps, where `t`'s value lives)."""
    kind = type(value)
    if kind is not int and kind is not float and kind is not bool and kind not in _PLAIN:
        return False
    key = _index(t, index)
    if key is None:
        return False
    array = writable(t)
    if array is None:
        return False
    if kind in _PLAIN:
        source = _tensor_source(value, array.dtype, array.shape[len(key) :], t)
    else:
        source = _scalar(value, array.dtype)
    if source is None:
        return False
    try:
        array[key] = source
    except IndexError:
        return False  # (the op path raises PyTorch's error)
    t._version_counter[0] += 1
    return True


def get_item(t: Tensor, index) -> Tensor | None:
    """`t[index]` as a `HostView`, or None where the op path must make the view."""
    key = _index(t, index)
    if key is None or not _needs_no_graph(t):
        return None
    array = _host_copy(t)
    if array is None:
        return None
    rec = t._storage
    view = rec is not None and rec.base is not None  # (a root's layout is plain)
    shape, strides, offset = cast(Alias, rec).layout if view else plain_layout(array.shape)
    spec = list(cast(Alias, rec).spec) if view else []
    for dim, i in enumerate(key):
        size = shape[dim]
        if not -size <= i < size:
            return None  # (the op path raises PyTorch's error)
        i %= size
        spec.append(("select", 0, i))
        offset += i * strides[dim]
    if rec is None:
        rec = _adopt_on_host(t)
    n = len(key)
    out = Tensor._wrap(array[key + (...,)])
    out.__class__ = HostView
    counter = t._version_counter
    creation = rec.creation if _grad_mode._state.enabled else NO_GRAD
    base = t if rec.base is None else rec.base
    layout = (shape[n:], strides[n:], offset)
    out._storage = Alias(rec.buffer, tuple(spec), base, creation, layout, counter[0])
    out._version_counter = counter
    rec.buffer.members.add(out)
    return out


def _adopt_on_host(t: Tensor) -> Alias:
    """Make HostArrayTensor `t` the root member of a new host buffer (its first view)."""
    buffer = Buffer(None)
    buffer.__class__ = HostBuffer
    rec = Alias(buffer, (), None, DEFAULT, plain_layout(t._stored.shape), 0)
    t._storage = rec
    buffer.members.add(t)
    return rec


def add_number(t: Tensor, other, sign: int) -> bool:
    """`t += other` (`sign` 1) or `t -= other` (-1) of a Python number on the host copy that
    `t` reads and writes; False where the op path must do it."""
    kind = type(other)
    if kind is not int and kind is not float:
        return False
    dtype = t._stored.dtype
    if dtype not in _ARITHMETIC or not -_EXACT <= other <= _EXACT:  # (NaN, inf: the op path)
        return False
    bounds = _BOUNDS.get(dtype)
    if bounds is not None and (kind is float or not bounds[0] <= other <= bounds[1]):
        return False  # (a float result refused, or a number PyTorch wraps: the op path)
    if type(t) is HostArrayTensor:
        array = t._stored
    elif t._storage is not None and t._storage.base is not None:
        array = writable(t)  # (an item view moves its base to the host)
    else:
        return False  # (a whole tensor on the device stays there)
    if array is None or not _needs_no_graph(t):
        return False
    if sign > 0:
        np.add(array, other, out=array)
    else:
        np.subtract(array, other, out=array)
    t._version_counter[0] += 1
    return True
