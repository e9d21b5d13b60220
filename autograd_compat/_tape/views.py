"""Views: tensors sharing one buffer, with PyTorch's view + in-place semantics.

A plain tensor (the common case) has `_storage is None` and owns its value. Once a view of it
is taken, every tensor over that memory gets an `Alias` record in `_storage`: the shared
`Buffer` (the root value and its live members), a `spec` (a static tuple of primitive view
ops mapping the root value to this tensor's value), its autograd `base` (None for non-views)
and its PyTorch layout (sizes, strides, offset), which decides contiguity and overlap.

Writing through a member scatters the new value into the root (pure data movement, exact),
then recomputes every live member from the new root, so a change through a view is seen by
the base and by every other view. In the graph, a differentiable in-place change of a view
rebases its base onto a CopySlices node whose pure function is that scatter (its gradient is
jax.vjp of it), and the grad_fn of a view whose buffer changed is regenerated lazily as an
AsStridedBackward0 node over the base, as PyTorch does.
"""

from __future__ import annotations

import math
import weakref
from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

from .._pure import errors as _errors
from .._pure import memory as _memory
from .._pure.device import host_reshape
from .._pure.jax_internals import ArrayImpl
from .._pure.op import register
from .._pure.shapes import normalize_dim
from .._pure.sharding import keep_sharding
from .._pure.strides import dense, is_contiguous, layout_op, overlapping, plain_layout
from .._state import modes as _grad_mode
from .._state.node import COPY_SLICES_NAME, accumulator_of
from .._state.tensor import LazyTensor, MetaTensor, Tensor
from .._tape.record import apply, set_tangent

DEFAULT, NO_GRAD, MULTI = 0, 1, 2  # PyTorch's CreationMeta of a view

VIEW_LEAF_INPLACE = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation."
)

OVERLAP = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)
PARTIAL_OVERLAP = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer "
    "to a single memory location. Please clone() the tensor before performing the operation."
)
_NO_GRAD_SUFFIX = (
    " Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the no_grad block (if "
    "you don't want the inplace to be tracked) or both outside (if you want the inplace to be "
    "tracked)."
)
_MULTI_SUFFIX = (
    " This view is the output of a function that returns multiple views. Such functions do not "
    "allow the output views to be modified inplace. You should replace the inplace operation by "
    "an out-of-place one."
)


_PRUNE_AT = 8  # a buffer's member table is first pruned of dead entries at this size


class Members:
    """The live tensors over one buffer, held weakly and by identity (a WeakSet would compare
    tensors with `==`, which is elementwise).

    The weak references have no callback: a callback per member cost a closure when it was
    added and a Python call when it died, ~40% of a `.data` of a new tensor (the doubling
    loop's every iteration). A dead member's entry stays until the table has doubled since
    it was last pruned; every reader skips it (a dead reference never comes back, and a new
    tensor that gets a dead one's id replaces its entry)."""

    __slots__ = ("refs", "_prune_at")

    def __init__(self) -> None:
        self.refs: dict = {}  # id(tensor) -> weak reference to it
        self._prune_at = _PRUNE_AT

    def add(self, t) -> None:
        refs = self.refs
        refs[id(t)] = weakref.ref(t)
        if len(refs) >= self._prune_at:
            self._prune()

    def _prune(self) -> None:
        """Drop the dead entries, in place: a member another thread adds meanwhile stays."""
        refs = self.refs
        for key, ref in list(refs.items()):
            if ref() is None and refs.get(key) is ref:
                del refs[key]
        self._prune_at = max(_PRUNE_AT, 2 * len(refs))

    def discard(self, t) -> None:
        ref = self.refs.get(id(t))
        if ref is not None and ref() is t:
            del self.refs[id(t)]

    def __len__(self) -> int:
        count = 0
        for ref in self.refs.values():
            if ref() is not None:
                count += 1
        return count

    def holding(self, value) -> int:
        """How many live members hold `value` itself (views of the whole buffer): a compiled
        step's check before it donates `value`, run on every call, so a loop, not a chain of
        generators."""
        count = 0
        for ref in list(self.refs.values()):  # a copy: a member may die meanwhile
            t = ref()
            if t is not None and t._value is value:
                count += 1
        return count

    def __iter__(self):
        for ref in list(self.refs.values()):
            t = ref()
            if t is not None:
                yield t


class Buffer:
    """The memory shared by a set of tensors: the root value and the members viewing it.

    `pinned` is the root value whose host address `data_ptr()` handed out (a private copy, see
    `_ops/storage.py`), until the memory is written."""

    __slots__ = ("value", "members", "pinned", "__weakref__")

    def __init__(self, value) -> None:
        self.value = value
        self.members = Members()
        self.pinned: Any = None

    def holders(self, value) -> int:
        """How many references to `value` the buffer keeps: its root, and every member that
        shows the whole of it (a donation check: any more, and something else holds it)."""
        return (self.value is value) + self.members.holding(value)


class Alias:
    """How one tensor sees its buffer (the record a tensor's `_storage` holds)."""

    __slots__ = ("buffer", "spec", "base", "creation", "layout", "attr_version", "leaf")

    def __init__(self, buffer, spec, base, creation, layout, attr_version) -> None:
        self.buffer = buffer
        self.spec = spec  # primitive view ops from the root value to this tensor's value
        self.base = base  # the autograd base (a non-view Tensor), None for non-views
        self.creation = creation
        self.layout = layout  # (sizes, strides, storage offset), in root elements
        self.attr_version = attr_version  # version at which grad_fn was last made
        self.leaf = False  # requires_grad_() was called on this view: it accumulates .grad

    @property
    def members(self) -> Members:
        return self.buffer.members


_BUFFER_VALUE = Buffer.__dict__["value"]  # the slot, read without a subclass's property


class RootOnRead(Buffer):
    """A buffer whose root value is made at the first read of `value` (`_root_value`, which
    stores it with `_set_root_value`): the buffer is then a plain `Buffer`."""

    __slots__ = ()

    def _root_value(self):
        raise NotImplementedError

    def _set_root_value(self, value) -> None:
        _BUFFER_VALUE.__set__(self, value)
        self.__class__ = Buffer  # type: ignore[assignment]

    value = property(lambda self: self._root_value(), lambda self, v: self._set_root_value(v))


class PendingBuffer(RootOnRead):
    """The buffer of a deferred tensor that has views: its root value is the deferred op's
    output (`_defer/lazy.Pending`), computed at the first read of `value`, so making a view of
    a deferred value does not flush its run of ops."""

    __slots__ = ()

    def _root_value(self):
        value = _BUFFER_VALUE.__get__(self).result()
        self._set_root_value(value)
        return value


def shared_record() -> Alias:
    """A record two non-view tensors may share (for callers that
    alias a tensor by assigning one record to both); completed from its first member."""
    return Alias(Buffer(None), (), None, DEFAULT, None, 0)


def record_of(t) -> Alias:
    """`t`'s record, made (t becomes the root of a new buffer) or completed as needed."""
    rec = t._storage
    if rec is None:
        return adopt(t)
    if rec.layout is None:  # a shared_record(): its members are non-views of the whole buffer
        rec.layout = plain_layout(t._stored.shape)
        if rec.buffer.value is None:
            rec.buffer.value = t._value
    return rec


# ----------------------------------------------------------------------------- pure functions
_PLACED = ("select", "slice")  # the view ops whose position is a runtime input
NO_STARTS = np.zeros(0, np.int64)  # the positions of view ops that have none (one shared array)


def shaped(ops: tuple) -> tuple[tuple, np.ndarray]:
    """`ops` split into what fixes the view's shape (static, a compile key) and where the view
    lies (select's index, slice's start: one runtime int64 input), so `x[i]` for every `i`,
    or a window sliding along `x`, reuses one compiled function. A shaped slice keeps its
    length in place of its stop."""
    static: list[tuple] = []
    starts: list[int] = []
    for op in ops:
        kind = op[0]
        if kind == "select":
            static.append(("select", op[1], None))
            starts.append(op[2])
        elif kind == "slice":
            _, dim, start, stop, step = op
            static.append(("slice", dim, None, len(range(start, stop, step)), step))
            starts.append(start)
        else:
            static.append(op)
    return tuple(static), np.array(starts, np.int64) if starts else NO_STARTS


def _span(length: int, step: int) -> int:
    """How many elements a slice of `length` elements by `step` spans."""
    return (length - 1) * step + 1 if length else 0


def _apply_op(x, op, start=None):
    """One primitive view op on an array; `start` is the position of a shaped select/slice."""
    kind = op[0]
    if kind == "select":
        return lax.dynamic_index_in_dim(x, start, op[1], keepdims=False)
    if kind == "slice":
        _, dim, _, length, step = op
        window = lax.dynamic_slice_in_dim(x, start, _span(length, step), dim)
        return window if step == 1 else lax.slice_in_dim(window, 0, None, step, dim)
    if kind == "unsqueeze":
        return lax.expand_dims(x, (op[1],))
    if kind == "squeeze":
        return lax.squeeze(x, op[1])
    if kind == "view":
        return jnp.reshape(x, op[1])
    if kind == "permute":
        return jnp.transpose(x, op[1])
    if kind == "expand":
        return jnp.broadcast_to(x, op[1])
    if kind == "diagonal":
        _, offset, dim1, dim2 = op
        return jnp.diagonal(x, offset, dim1, dim2)
    if kind == "bitcast":
        return bitcast(x, op[2])
    if kind == "unfold":
        _, dim, size, step = op
        windows = jnp.take(x, _window_positions(x.shape[dim], size, step), axis=dim)
        return jnp.moveaxis(windows, dim + 1, -1)
    if kind == "strided":
        return jnp.reshape(x, (-1,))[strided_positions(op)]
    raise ValueError(f"unknown view op {op!r}")


def strided_positions(op: tuple) -> np.ndarray:
    """The flat memory positions that the view `("strided", size, stride, offset)` reads: an
    as_strided view, which always applies to the root value (the whole storage)."""
    _, size, stride, offset = op
    positions = np.full(size, offset, np.int64)
    for dim, (n, step) in enumerate(zip(size, stride)):
        trailing = (1,) * (len(size) - dim - 1)
        positions += (np.arange(n, dtype=np.int64) * step).reshape((n, *trailing))
    return positions


def _window_positions(length: int, size: int, step: int) -> np.ndarray:
    """The (windows, size) positions along a dimension of `length` that unfold views."""
    count = (length - size) // step + 1
    return np.arange(count)[:, None] * step + np.arange(size)[None, :]


def _scatter_op(x, v, op, start=None):
    """`x` with the elements that `op` views replaced by `v` (the exact inverse write)."""
    kind = op[0]
    if kind == "select":
        return lax.dynamic_update_index_in_dim(x, v, start, op[1])
    if kind == "slice":
        _, dim, _, length, step = op
        if step != 1:  # write every step-th element of the window the slice spans
            window = lax.dynamic_slice_in_dim(x, start, _span(length, step), dim)
            v = window.at[(slice(None),) * dim + (slice(None, None, step),)].set(v)
        return lax.dynamic_update_slice_in_dim(x, v, start, dim)
    if kind == "unsqueeze":
        return lax.squeeze(v, (op[1],))
    if kind in ("squeeze", "view"):
        return jnp.reshape(v, x.shape)
    if kind == "permute":
        return jnp.transpose(v, tuple(int(i) for i in np.argsort(op[1])))
    if kind == "expand":
        # Several elements of v alias one of x: the last is written (only fills, whose values
        # are all equal, may write an overlapping view).
        if v.size == 0:
            return x
        lead = v.ndim - x.ndim
        if lead:
            v = v[(-1,) * lead]
        for dim, size in enumerate(x.shape):
            if size == 1 and v.shape[dim] != 1:
                v = lax.slice_in_dim(v, v.shape[dim] - 1, v.shape[dim], axis=dim)
        return v
    if kind == "diagonal":
        _, offset, dim1, dim2 = op
        moved = jnp.moveaxis(x, (dim1, dim2), (-2, -1))
        n = v.shape[-1]
        rows = np.arange(n) + max(-offset, 0)
        cols = np.arange(n) + max(offset, 0)
        moved = moved.at[..., rows, cols].set(v)
        return jnp.moveaxis(moved, (-2, -1), (dim1, dim2))
    if kind == "bitcast":
        return jnp.reshape(bitcast(v, op[1]), x.shape)
    if kind == "unfold":
        # Overlapping windows (step < size) alias elements: one of their values is written.
        _, dim, size, step = op
        positions = _window_positions(x.shape[dim], size, step)
        windows = jnp.moveaxis(jnp.moveaxis(v, -1, dim + 1), (dim, dim + 1), (-2, -1))
        moved = jnp.moveaxis(x, dim, -1).at[..., positions].set(windows)
        return jnp.moveaxis(moved, -1, dim)
    if kind == "strided":  # overlapping positions: one of their values is written
        flat = jnp.reshape(x, (-1,)).at[strided_positions(op)].set(v)
        return jnp.reshape(flat, x.shape)
    raise ValueError(f"unknown view op {op!r}")


def bitcast(x, dtype: np.dtype):
    """`x`'s bytes read as `dtype` (PyTorch's `view(dtype)`): the last dimension is scaled by
    the ratio of the element sizes. Bools are bytes holding 0 or 1."""
    if x.dtype == np.bool_:
        x = x.astype(np.uint8)
    target = np.dtype(np.uint8) if dtype == np.bool_ else dtype
    old, new = x.dtype.itemsize, target.itemsize
    if new > old:
        x = jnp.reshape(x, (*x.shape[:-1], x.shape[-1] * old // new, new // old))
    out = lax.bitcast_convert_type(x, target)
    if new < old:
        out = jnp.reshape(out, (*x.shape[:-1], x.shape[-1] * old // new))
    return out != 0 if dtype == np.bool_ else out


def view_of(x, starts, *, ops):
    """The view `ops` (shaped, see `shaped`) of `x` at `starts`: the pure function of every
    view op."""
    positions = iter(starts)
    for op in ops:
        x = _apply_op(x, op, next(positions) if op[0] in _PLACED else None)
    return x


def view_on_host(x, starts, *, ops):
    """`view_of` with no program where the ops only reshape (view, squeeze, unsqueeze) a
    concrete CPU array: the result shares `x`'s buffer (`host_reshape`), and an alias (no ops)
    is `x` itself, as arrays never change. None otherwise (`Op.host`)."""
    if type(x) is not ArrayImpl:
        return None
    if not ops:
        return x
    shape = x.shape
    for op in ops:
        kind = op[0]
        if kind == "view":
            shape = op[1]
        elif kind == "unsqueeze":
            shape = (*shape[: op[1]], 1, *shape[op[1] :])
        elif kind == "squeeze":
            shape = tuple([size for dim, size in enumerate(shape) if dim not in op[1]])
        else:
            return None
    return host_reshape(x, shape)


def scatter(x, v, starts, ops):
    """`x` with its view `ops` at `starts` replaced by `v` (exact: data movement only)."""
    return _scatter(x, v, iter(starts), ops)


def _scatter(x, v, positions, ops):
    if not ops:
        return v
    start = next(positions) if ops[0][0] in _PLACED else None
    inner = _apply_op(x, ops[0], start)
    return _scatter_op(x, _scatter(inner, v, positions, ops[1:]), ops[0], start)


def _rel_view(base, starts, *, rel):
    """The view of `base` described by a relative spec (see `relative`)."""
    prefix, ops, root_shape = rel
    if prefix is None:
        return view_of(base, starts, ops=ops)
    n = _placed_count(prefix)
    root = scatter(jnp.zeros(root_shape, base.dtype), base, starts[:n], prefix)
    return view_of(root, starts[n:], ops=ops)


def _rel_scatter(base, value, starts, *, rel):
    """`base` with its view `rel` replaced by `value`: CopySlices' pure function."""
    prefix, ops, root_shape = rel
    value = value.astype(_viewed_dtype(ops, base.dtype))
    if prefix is None:
        return scatter(base, value, starts, ops)
    n = _placed_count(prefix)
    root = scatter(jnp.zeros(root_shape, base.dtype), base, starts[:n], prefix)
    return view_of(scatter(root, value, starts[n:], ops), starts[:n], ops=prefix)


def _viewed_dtype(ops: tuple, dtype):
    """The dtype a view `ops` of an array of `dtype` has (a `bitcast` changes it)."""
    for op in ops:
        if op[0] == "bitcast":
            dtype = op[2]
    return dtype


def _placed_count(ops: tuple) -> int:
    return sum(op[0] in _PLACED for op in ops)


def shaped_rel(rel: tuple) -> tuple[tuple, np.ndarray]:
    """A relative spec split as `shaped` splits ops: (static spec, the prefix's starts then
    the ops')."""
    prefix, ops, root_shape = rel
    static_ops, starts = shaped(ops)
    if prefix is None:
        return (None, static_ops, root_shape), starts
    static_prefix, prefix_starts = shaped(prefix)
    return (static_prefix, static_ops, root_shape), np.concatenate([prefix_starts, starts])


COPY_SLICES = register(
    "_internal.copy_slices",
    _rel_scatter,
    node=COPY_SLICES_NAME,
    saves="positions",
    shown_inputs=(0, 1),
)
AS_STRIDED = register(
    "_internal.as_strided",
    _rel_view,
    node="AsStridedBackward0",
    saves="positions",
    shown_inputs=(0,),
)


def _root_rel(spec: tuple) -> tuple:
    return (None, spec, None)


def relative(rec: Alias, base_rec: Alias) -> tuple:
    """The (hashable) spec of a view relative to its base's current value."""
    prefix = base_rec.spec
    if rec.spec[: len(prefix)] == prefix:
        return (None, rec.spec[len(prefix) :], None)
    return (prefix, rec.spec, rec.buffer.value.shape)  # the base itself was re-viewed (t_())


# ----------------------------------------------------------------------------- layout
def assert_no_partial_overlap(buffer, layout: tuple, other) -> None:
    """PyTorch's assert_no_partial_overlap between a written-to region (`layout` of `buffer`)
    and an input tensor: refused when both are dense and their memory partly coincides."""
    rec = getattr(other, "_storage", None)
    if rec is None or rec.buffer is not buffer:
        return
    other_layout = layout_of(other)
    n, m = math.prod(layout[0]), math.prod(other_layout[0])
    if not n or not m or not dense(layout) or not dense(other_layout):
        return  # PyTorch: no elements, or too hard to tell
    begin, other_begin = layout[2], other_layout[2]
    if begin == other_begin and n == m:
        if tuple(layout[1]) == tuple(other_layout[1]):
            return  # the same elements: a full overlap is fine
    elif not (begin < other_begin + m and other_begin < begin + n):
        return
    raise RuntimeError(PARTIAL_OVERLAP)


def layout_of(t) -> tuple:
    """A tensor's (sizes, strides, offset); plain tensors are contiguous."""
    rec = t._storage
    if rec is not None and rec.layout is not None:
        return rec.layout
    return plain_layout(t._stored.shape)


# ----------------------------------------------------------------------------- membership
def adopt(t) -> Alias:
    """Make plain tensor `t` the root member of a new buffer (its first view is being made);
    a deferred `t`'s buffer keeps its value deferred (`PendingBuffer`)."""
    if type(t) is LazyTensor:
        buffer = Buffer(t._stored)
        buffer.__class__ = PendingBuffer
    else:
        buffer = Buffer(t._value)
    rec = Alias(buffer, (), None, DEFAULT, plain_layout(t._stored.shape), 0)
    t._storage = rec
    buffer.members.add(t)
    return rec


def root_member(buffer: Buffer):
    """A non-view tensor over the whole of `buffer` (a live one, or one made and added)."""
    for member in buffer.members:
        if not member._storage.spec:
            return member
    t = Tensor._wrap(buffer.value)
    t._storage = Alias(buffer, (), None, DEFAULT, plain_layout(buffer.value.shape), 0)
    buffer.members.add(t)
    return t


def make_view(
    src, out, ops: tuple, layout: tuple | None = None, multi: bool = False, absolute=False
):
    """Mark `out` (computed from `src` by `ops`) as a view of `src`'s buffer and return it;
    `absolute`: `ops` apply to the root value, not to `src`'s (as_strided's).
    A meta tensor has no memory to share: it is returned as it is."""
    if isinstance(out, MetaTensor):
        return out
    srec = record_of(src)
    if layout is None:
        layout = srec.layout
        for op in ops:
            layout = layout_op(layout, op)
    base = srec.base if srec.base is not None else src
    # PyTorch's propagate_creation_meta: a plain view inherits its source's meta
    creation = (MULTI if multi else srec.creation) if _grad_mode._state.enabled else NO_GRAD
    counter = src._version_counter
    spec = ops if absolute else srec.spec + ops
    rec = Alias(srec.buffer, spec, base, creation, layout, counter[0])
    out._storage = rec
    out._version_counter = counter
    srec.buffer.members.add(out)
    if base._requires_grad:
        out._requires_grad = True  # PyTorch: a view requires grad when its base does
    if src._is_inference:
        out._is_inference = True  # a view of an inference tensor is one, in any mode
    return out


def alias_of(t, share_version: bool):
    """A non-view tensor over `t`'s memory (detach(), .data): writes are shared. A non-view
    `t`'s record serves both (what it holds is the same for every non-view of the memory).
    A meta tensor has no memory: its alias is another meta tensor of its shape and dtype."""
    if isinstance(t, MetaTensor):
        out = MetaTensor._wrap(t._stored)
        if share_version:
            out._version_counter = t._version_counter
        return out
    rec = record_of(t)
    out = Tensor._wrap(t._value)
    if rec.base is None:
        out._storage = rec
    else:
        out._storage = Alias(rec.buffer, rec.spec, None, DEFAULT, rec.layout, 0)
    if share_version:
        out._version_counter = t._version_counter
    rec.buffer.members.add(out)
    return out


def join(t, other) -> None:
    """`t.data = other`: `t` now aliases `other`'s memory (keeping its own version counter)."""
    old = t._storage
    if old is not None:
        old.buffer.members.discard(t)
    rec = record_of(other)
    t._storage = Alias(rec.buffer, rec.spec, None, DEFAULT, rec.layout, 0)
    rec.buffer.members.add(t)
    t._value = other._value


def commit_tangent(t, result) -> None:
    """Forward AD: an in-place result's tangent (zeros if it has none) replaces `t`'s, and the
    slice of its base's, as PyTorch's view tangents are views of the base's."""
    tangent = result._fw_grad
    if tangent is None:
        tangent = Tensor._wrap(jnp.zeros_like(result._value))
    set_tangent(t, tangent)
    rec = t._storage
    if rec is not None and rec.base is not None:
        base = rec.base
        old = base._fw_grad._value if base._fw_grad is not None else jnp.zeros_like(base._value)
        rel, starts = shaped_rel(relative(rec, base._storage))
        scatter = COPY_SLICES.compiled((("rel", rel),))
        set_tangent(base, Tensor._wrap(scatter(old, tangent._value, starts)))


def write(t, value) -> None:
    """Rebind `t`'s value to `value` through its buffer: every member sees the change."""
    rec = record_of(t)
    buf = rec.buffer
    if rec.spec:
        rel, starts = shaped_rel(_root_rel(rec.spec))
        root = keep_sharding(
            COPY_SLICES.compiled((("rel", rel),))(buf.value, value, starts), buf.value
        )
    else:
        root = value = keep_sharding(value, buf.value)
    # every new value is computed (and a big one settled) before any is stored: a write that
    # runs out of memory leaves the buffer and its members as they were
    buf.pinned = None  # the address data_ptr() gave is the old value's (`_ops/storage.py`)
    members = buf.members
    if len(members) == 1:
        new = value if not overlapping(rec.layout) else view_member(root, rec.spec)
        _memory.settle_all((root, new))
        buf.value = root
        t._value = new
        return
    values = []
    for member in members:
        spec = member._storage.spec
        if not spec:
            values.append((member, root))
        elif member is t and not overlapping(rec.layout):
            values.append((member, value))
        else:
            values.append((member, view_member(root, spec)))
    _memory.settle_all([root] + [v for _, v in values])
    buf.value = root
    for member, new in values:
        member._value = new


def node_name(t) -> str | None:
    """The name of `t`'s node (None for leaves), without regenerating a view's."""
    node = t._grad_fn
    return None if node is None else node.name()


def view_member(root, spec: tuple):
    """A member's value recomputed from the root value (jitted, cached per spec)."""
    if not spec:
        return root
    rel, starts = shaped_rel(_root_rel(spec))
    return AS_STRIDED.compiled((("rel", rel),))(root, starts)


def _views_of(base):
    for member in base._storage.buffer.members:
        if member._storage.base is base:
            yield member


def mark_requires_grad(base) -> None:
    """The base now requires grad: so do its views (PyTorch's requires_grad of a view)."""
    if base._storage is not None:
        for view in _views_of(base):
            view._requires_grad = True


# ----------------------------------------------------------------------------- autograd
def display_name(name: str) -> str:
    """How PyTorch's messages name a node: "MulBackward0" -> "Mul", "TBackward1" -> "T1"."""
    if name.endswith("Backward0"):
        return name[: -len("Backward0")]
    return name.replace("Backward", "")


def check_rebase(t, rec: Alias, indirect: bool) -> None:
    """PyTorch's handle_view_on_rebase: views made in no_grad mode or by multi-output ops
    may not be modified in place where the change would be recorded."""
    if rec.creation == DEFAULT:
        return
    node = t._grad_fn
    modified = "its base or another view of its base has been" if indirect else "is being"
    if rec.creation == NO_GRAD or node is None:
        if node is not None:
            prefix = (
                f"Output {t.output_nr} of {display_name(node.name())} is a view of a view which "
                "was created in"
            )
        else:
            prefix = "A view was created in"
        message = f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled."
    else:
        message = (
            f"Output {t.output_nr} of {display_name(node.name())} is a view and {modified} "
            "modified inplace."
        )
    raise RuntimeError(message + (_MULTI_SUFFIX if rec.creation == MULTI else _NO_GRAD_SUFFIX))


def view_grad_fn(t):
    """A view's grad_fn, regenerated over its base when the shared version moved on."""
    rec = t._storage
    base = rec.base
    node = t._grad_fn
    if node is None and not base._requires_grad:
        return None
    version = t._version_counter[0]
    if rec.attr_version != version:
        check_rebase(t, rec, indirect=True)
        previous = _grad_mode._state.enabled
        _grad_mode._state.enabled = True
        try:
            rel, starts = shaped_rel(relative(rec, base._storage))
            node = apply(AS_STRIDED, base, starts, rel=rel)._grad_fn
        finally:
            _grad_mode._state.enabled = previous
        t._grad_fn = node
        t.output_nr = 0
        if node is not None:
            t._requires_grad = True
        rec.attr_version = version
    return node


def check_inplace(t) -> None:
    """PyTorch's check_inplace for a tensor that requires grad, under grad mode."""
    rec = t._storage
    if rec is not None and rec.base is not None:
        check_rebase(t, rec, indirect=False)
        if rec.base._grad_fn is None:
            raise RuntimeError(VIEW_LEAF_INPLACE)
        return
    if t.grad_fn is None:
        raise RuntimeError(_errors.LEAF_INPLACE)


def exempt_self(node, t) -> None:
    """The node of an in-place op read `t` before the write: its saved copy is a snapshot
    (arrays are immutable), like PyTorch's saved `original_self` clone, so it is no longer
    version-checked. Only the first saved entry that is `t` itself is dropped; another input
    aliasing `t` (`a.mul_(a)`, `a[0].mul_(a[1])`) stays checked, so backward raises PyTorch's
    "modified by an inplace operation" error as PyTorch does."""
    versions = node.versions
    counter = t._version_counter
    for i, (watch_counter, _, ref) in enumerate(versions):
        if watch_counter is counter and ref() is t:
            node.versions = versions[:i] + versions[i + 1 :]
            return


def commit(t, result) -> None:
    """In-place write of `result` (checked: same shape and dtype) into member `t`."""
    rec = record_of(t)
    if overlapping(rec.layout) and node_name(result) not in ("FillBackward2", "ZeroBackward0"):
        raise RuntimeError(OVERLAP)
    node = result._grad_fn
    base = rec.base
    counter = t._version_counter
    if node is not None and base is not None:
        check_rebase(t, rec, indirect=False)
        previous = _grad_mode._state.enabled
        _grad_mode._state.enabled = True
        try:
            rel, starts = shaped_rel(relative(rec, base._storage))
            new_base = apply(COPY_SLICES, base, result, starts, rel=rel)
        finally:
            _grad_mode._state.enabled = previous
        write(base, new_base._value)
        counter[0] += 1
        exempt_self(node, t)
        newly = not base._requires_grad
        base._grad_fn = new_base._grad_fn
        base.output_nr = 0
        base._requires_grad = True
        t._requires_grad = True  # its grad_fn is regenerated over the CopySlices on access
        if newly:
            mark_requires_grad(base)
        return
    write(t, result._value)
    counter[0] += 1
    if node is not None:
        exempt_self(node, t)
        newly = not t._requires_grad
        t._grad_fn = node
        t.output_nr = result.output_nr
        t._requires_grad = True
        if newly:
            mark_requires_grad(t)


# ----------------------------------------------------------------------------- Tensor methods
def grad_edge(t: Tensor):
    """Where `t`'s gradient goes: (grad_fn, output_nr), or its leaf accumulator."""
    rec = t._storage
    if rec is not None and rec.base is not None:
        node = view_grad_fn(t)
        if node is not None:
            return (node, t.output_nr)
        if rec.leaf and t._requires_grad:
            return (accumulator_of(t), 0)
        return None  # a view made under no_grad: PyTorch gives it no gradient edge
    if t._grad_fn is not None:
        return (t._grad_fn, t.output_nr)
    if t._requires_grad:
        return (accumulator_of(t), 0)
    return None


def tensor_is_contiguous(t: Tensor, memory_format=None) -> bool:
    """`Tensor.is_contiguous`: whether the elements are laid out row-major in memory (false
    for most views)."""
    if t._storage is None:
        return True
    return is_contiguous(layout_of(t))


def tensor_stride(t: Tensor, dim: int | None = None):
    """`Tensor.stride`: PyTorch's strides (in elements) of this tensor's memory layout."""
    strides = layout_of(t)[1]
    if dim is None:
        return strides
    return strides[normalize_dim(dim, t._stored.ndim)]


def tensor_storage_offset(t: Tensor) -> int:
    """`Tensor.storage_offset`: where this tensor starts in its memory, in elements."""
    return layout_of(t)[2]
