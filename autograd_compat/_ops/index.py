"""Indexing: `t[key]` and item assignment (`t[key] = value`), gather/scatter/scatter_add/
scatter_reduce, take/take_along_dim, index_select/index_add/index_fill/index_copy,
masked_fill/masked_scatter/masked_select, nonzero, fill_diagonal_, repeat_interleave and
one_hot.

Item assignment creates the same views as shape.py's view ops and writes through them
(`copy_`/`fill_`), or scatters with `index_put_` for advanced indices. Index bounds are
checked eagerly when the index is concrete (PyTorch raises for them; JAX would clamp or fill
silently); under a jax trace those checks are skipped. Ops whose output shape depends on the
values (nonzero, masked_select, one_hot without num_classes) need concrete values: under a
jax trace they raise a clear error.
"""

from __future__ import annotations

import functools
import math
import warnings

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .._pure import dtypes as _dtypes
from .._pure import errors as _errors
from .._pure import float8
from .._pure.dtype_rules import INDEX, require_kernel
from .._pure.op import constant, register
from .._pure.shapes import broadcast_shapes, normalize_dim
from .._pure.strides import contiguous_strides, expand_geometry, layout_op, overlapping
from .._state import modes as _grad_mode
from .._state.modes import modes
from .._state.tensor import Tensor
from .._tape import host_items
from .._tape.args import (
    check_inplace,
    check_same_dtype,
    commit_inplace,
    numpy_names,
    scalar_type_name,
    tensor_arg,
)
from .._tape.record import apply
from .._tape.views import NO_STARTS, OVERLAP, assert_no_partial_overlap, layout_of, shaped, view_of
from .._tape.views import scatter as scatter_view
from . import factories as _factories
from .elementwise import _ctype, _no_derivative
from .out_arg import takes_out
from .shape import (
    _ALIAS,
    _BY_LAST_OP,
    _concrete_index,
    _is_integral,
    _needs_concrete,
    _view,
    expand,
    reshape,
    unsqueeze,
)

__all__ = [
    "argwhere",
    "gather",
    "index_add",
    "index_copy",
    "index_fill",
    "index_select",
    "masked_fill",
    "masked_scatter",
    "masked_select",
    "nonzero",
    "repeat_interleave",
    "scatter",
    "scatter_add",
    "take",
    "take_along_dim",
]


_SEQUENCE_INDEX = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed "
    "in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
    "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error or "
    "a different result"
)
_UINT8_INDEX = (
    "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead."
)


def fill_diagonal_(self, fill_value, wrap: bool = False):
    """Fill the main diagonal (all dims of equal length beyond 2-D) with `fill_value` in place,
    through a view as in PyTorch (CopySlices in the graph). `wrap=True` continues a tall
    matrix's diagonal every `ncols + 1` rows. Returns self."""
    if self.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    shape = tuple(self.shape)
    if self.ndim > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    numel = math.prod(shape)
    step = sum(contiguous_strides(shape))  # flat distance between diagonal elements
    size = min(shape[0], shape[1])
    if wrap and self.ndim == 2:
        stop = numel  # the diagonal goes on below a tall matrix's top square
    else:
        stop = (size - 1) * step + 1 if size else 0
    diagonal = _view(_ALIAS, self, (("view", (numel,)), ("slice", 0, 0, stop, step)))
    diagonal.fill_(fill_value)
    return self


# ----------------------------------------------------------------------------- indexing
_MASK_DTYPES = (np.dtype(np.bool_), np.dtype(np.uint8))


def _items(index) -> tuple:
    """The index as a tuple of items (PyTorch's treatSequenceAsTuple, with its warning)."""
    if isinstance(index, tuple):
        return index
    if isinstance(index, list) and len(index) < 32:
        for item in index:
            if (
                item is None
                or item is Ellipsis
                or isinstance(item, (Tensor, list, tuple, slice, np.ndarray, jax.Array))
            ):
                warnings.warn(_SEQUENCE_INDEX, UserWarning, stacklevel=4)
                return tuple(index)
    return (index,)


def _is_integer(item) -> bool:
    return isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_))


def _index_value(item):
    """An index tensor or sequence as an integer or boolean array (numpy when concrete)."""
    if isinstance(item, Tensor):
        if modes.captures:  # a compiled trace must not bake this index in
            modes.note_read(item)
        item = item._value
    if isinstance(item, jax.core.Tracer):
        if item.dtype in _MASK_DTYPES:
            raise _errors.DataDependentIndexError(
                "boolean mask indexing needs concrete values (not inside jax.jit)"
            )
        if not jnp.issubdtype(item.dtype, jnp.integer):
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        return item
    array = np.asarray(item)
    if array.dtype == object:
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if array.size == 0 and array.dtype.kind == "f" and not isinstance(item, np.ndarray):
        array = array.astype(np.int64)  # `x[[]]` indexes with an empty long tensor
    if array.dtype.kind not in "iub":
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return array


def _classify(item):
    """("int", i) | ("slice", slice) | ("none",) | ("ellipsis",) | ("bool", b) | ("array", a)."""
    if item is None:
        return ("none",)
    if item is Ellipsis:
        return ("ellipsis",)
    if isinstance(item, (bool, np.bool_)):
        return ("bool", bool(item))
    if isinstance(item, slice):
        return ("slice", item)
    if _is_integer(item):
        return ("int", int(item))
    if isinstance(item, (Tensor, np.ndarray, jax.Array)):
        value = item._value if isinstance(item, Tensor) else item
        if value.ndim == 0 and not isinstance(value, jax.core.Tracer):
            kind = np.dtype(value.dtype).kind
            if kind in "iu" and np.dtype(value.dtype) != np.uint8:
                return ("int", int(value))
            if kind == "b" or np.dtype(value.dtype) == np.uint8:
                return ("bool", bool(value))
        return ("array", _index_value(item))
    if isinstance(item, (list, tuple)):
        return ("array", _index_value(item))
    return ("invalid", item)


def _invalid_index(item) -> Exception:
    """PyTorch's error for an index of no valid kind, raised once the count of indices
    against the dimensions has passed: a str is taken for a sequence to make a tensor of."""
    if isinstance(item, str):
        return TypeError("new(): invalid data type 'str'")
    return IndexError(
        "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
        f"valid indices (got {type(item).__name__})"
    )


def _slice_bound(value, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, Tensor):
        return value.__index__()
    return int(value.__index__()) if hasattr(value, "__index__") else int(value)


def _parse_index(shape: tuple, index, optimize_single_slice: bool):
    """PyTorch's applySlicing: the basic part as primitive view ops (select, slice,
    unsqueeze), then the advanced indices as (dim in the sliced tensor, array, size).

    Returns (ops, advanced, single) where `single` is the kind of a lone non-tuple index.
    """
    single = None
    if not isinstance(index, (tuple, list)):
        single = _classify(index)
        kinds = [single]
        if single[0] == "int" and not shape:
            raise IndexError(
                "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
            )
    else:
        kinds = [_classify(item) for item in _items(index)]
    specified = 0
    for kind in kinds:
        if kind[0] in ("int", "slice", "invalid"):
            specified += 1
        elif kind[0] == "array":
            array = kind[1]
            specified += array.ndim if array.dtype in _MASK_DTYPES else 1
    if specified > len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
    for kind in kinds:
        if kind[0] == "invalid":
            raise _invalid_index(kind[1])
    ops: list[tuple] = []
    advanced = []
    current = list(shape)
    dim = 0
    for real_dim, kind in enumerate(kinds):
        tag = kind[0]
        if tag == "int":
            size = current[dim]
            if not -size <= kind[1] < size:
                raise IndexError(
                    _errors.INDEX_OUT_OF_RANGE.format(index=kind[1], dim=real_dim, size=size)
                )
            ops.append(("select", dim, kind[1] % size))
            del current[dim]
        elif tag == "slice":
            item = kind[1]
            step = _slice_bound(item.step, 1)
            if step == 0:
                raise ValueError("slice step cannot be zero")
            if step < 0:
                raise ValueError("step must be greater than zero")
            raw_start = _slice_bound(item.start, 0)
            raw_stop = _slice_bound(item.stop, 2**63 - 1)
            size = current[dim]
            if optimize_single_slice or single is None:
                if raw_start == 0 and raw_stop >= size and step == 1:
                    dim += 1
                    continue
            start, stop = raw_start, raw_stop
            if start < 0:
                start += size
            if stop < 0:
                stop += size
            start = min(max(start, 0), size)
            stop = min(max(stop, start), size)
            ops.append(("slice", dim, start, stop, step))
            current[dim] = len(range(start, stop, step))
            dim += 1
        elif tag == "ellipsis":
            dim += len(shape) - specified
        elif tag == "none":
            ops.append(("unsqueeze", dim))
            current.insert(dim, 1)
            dim += 1
        elif tag == "bool":
            ops.append(("unsqueeze", dim))
            current.insert(dim, 1)
            positions = np.zeros(1 if kind[1] else 0, np.int64)
            advanced.append((dim, positions, 1))
            dim += 1
        else:
            array = kind[1]
            if array.dtype in _MASK_DTYPES:
                if array.dtype == np.uint8:
                    warnings.warn(_UINT8_INDEX, UserWarning, stacklevel=4)
                for j in range(array.ndim):
                    if array.shape[j] != current[dim + j]:
                        raise IndexError(
                            f"The shape of the mask {list(array.shape)} at index {j} does not "
                            f"match the shape of the indexed tensor {current} at index {dim + j}"
                        )
                for j, positions in enumerate(np.nonzero(array)):
                    advanced.append((dim + j, positions.astype(np.int64), current[dim + j]))
                dim += array.ndim
            else:
                advanced.append((dim, array, current[dim]))
                dim += 1
    for ordinal, (_, array, size) in enumerate(advanced):
        if isinstance(array, np.ndarray) and array.size:
            bad = array[(array >= size) | (array < -size)]
            if bad.size:
                message = _errors.INDEX_OUT_OF_RANGE
                raise IndexError(message.format(index=int(bad.flat[0]), dim=ordinal, size=size))
    return tuple(ops), advanced, single


def _advanced_key(x, starts, *arrays, ops, dims):
    x = view_of(x, starts, ops=ops)
    index = [slice(None)] * x.ndim
    for d, a in zip(dims, arrays):
        index[d] = a
    return x, tuple(index)


def _index(x, starts, *arrays, ops, dims):
    x, index = _advanced_key(x, starts, *arrays, ops=ops, dims=dims)
    return x[index]


def _index_put(x, value, *arrays, dims, shape):
    _, index = _advanced_key(x, (), *arrays, ops=(), dims=dims)
    value = float8.convert(jnp.reshape(value, shape), x.dtype)
    return x.at[index].set(value, unique_indices=True)  # duplicates: each gets the gradient


# saves="others": the vjp needs the index arrays and view positions (never the indexed tensor)
_INDEX = register("index", _index, node="IndexBackward0", shown_inputs=(0,), saves="others")
_INDEX_PUT = register(
    "index_put", _index_put, node="IndexPutBackward0", shown_inputs=(0, 1), saves="others"
)


def _broadcast_copy(dst, src, *, shape):
    return jnp.broadcast_to(float8.convert(jnp.reshape(src, shape), dst.dtype), dst.shape)


_COPY = register("copy_.broadcast", _broadcast_copy, node="CopyBackwards", saves="none")
_FILL = register("fill_.broadcast", _broadcast_copy, node="FillBackward3", saves="none")


def _basic_view(self: Tensor, ops: tuple) -> Tensor:
    """The view of a basic index: one node per primitive when recorded (PyTorch's graph:
    x[1, 2] is SelectBackward0 of SelectBackward0), else one fused op."""
    if not ops:
        return _view(_ALIAS, self, ())
    if len(ops) == 1 or not (self._requires_grad and _grad_mode._state.enabled):
        return _view(_BY_LAST_OP[ops[-1][0]], self, ops)
    out = self
    for op in ops:
        out = _view(_BY_LAST_OP[op[0]], out, (op,))
    return out


def getitem(self, index):
    """`tensor[index]` with PyTorch's semantics: ints, slices (positive steps), None, `...`
    and bools give a view; integer tensors/lists and boolean masks (advanced indexing) give a
    copy, with PyTorch's result shapes for mixed basic and advanced indices."""
    if type(self) in host_items.HOST_TYPES:  # `x[i]` of a tensor held on the host: numpy's
        host = host_items.get_item(self, index)
        if host is not None:
            return host
    if type(index) is int:  # `x[i]` in a loop: one select, no parse (a bad `i` is parsed below)
        shape = self._stored.shape
        if shape and -shape[0] <= index < shape[0]:
            return _basic_view(self, (("select", 0, index % shape[0]),))
    ops, advanced, _ = _parse_index(tuple(self.shape), index, optimize_single_slice=False)
    if not advanced:
        return _basic_view(self, ops)
    dims = tuple(d for d, _, _ in advanced)
    arrays = [a for _, a, _ in advanced]
    try:
        np.broadcast_shapes(*[a.shape for a in arrays])
    except ValueError:
        shapes = ", ".join(str(list(a.shape)) for a in arrays)
        raise IndexError(
            f"shape mismatch: indexing tensors could not be broadcast together with shapes {shapes}"
        ) from None
    if ops and self._requires_grad and _grad_mode._state.enabled:
        # PyTorch's graph: IndexBackward0 of the basic part's view nodes
        return apply(_INDEX, _basic_view(self, ops), NO_STARTS, *arrays, ops=(), dims=dims)
    static, starts = shaped(ops)
    return apply(_INDEX, self, starts, *arrays, ops=static, dims=dims)


def _strip_leading_ones(shape: tuple) -> tuple:
    """PyTorch's slicePrefix1sSize: a value's leading 1-sized dims are ignored."""
    i = 0
    while i < len(shape) and shape[i] == 1:
        i += 1
    return tuple(shape[i:])


def _value_tensor(self: Tensor, value) -> Tensor | jax.Array:
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (bool, int, float, complex, np.number, np.bool_)):
        if isinstance(value, (complex, np.complexfloating)) and not self.dtype.is_complex:
            name = _dtypes.CPP_NAMES.get(self.dtype, "double")  # (PyTorch's half types too)
            raise RuntimeError(f"value cannot be converted to type {name} without overflow")
        value = value.item() if isinstance(value, np.generic) else value
        if self.dtype not in _dtypes.FLOAT8:  # PyTorch's item assignment saturates these
            value = _dtypes.fit_scalar(value, self.dtype)
        return constant(value, self.dtype.jax)
    kind = type(value)
    name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
    raise TypeError(f"can't assign a {name} to a torch.{_dtypes.LEGACY_TYPE_NAMES[self.dtype]}")


def _type_name(value) -> str:
    """The legacy type name ("FloatTensor") of a tensor or array, as expand's errors say."""
    d = value.dtype if isinstance(value, Tensor) else _dtypes.from_jax(value.dtype)
    return _dtypes.LEGACY_TYPE_NAMES[d]


def _copy_plan(target_shape: tuple, value) -> tuple:
    """PyTorch's copy_to: (op, value shape) for copy_ when shapes match, fill_ from a 0-dim
    value, else an expand of the value (leading 1s dropped), checked as expand checks."""
    shape = tuple(value.shape)
    if shape == target_shape:
        return _COPY, shape
    if not shape:
        return _FILL, shape
    shape = _strip_leading_ones(shape)
    expand_geometry(shape, contiguous_strides(shape), target_shape, _type_name(value))
    return _COPY, shape


def _index_put_plan(target_shape: tuple, advanced: list, value) -> tuple:
    """(dims, arrays, value shape) of index_put_ at the advanced indices, checked as PyTorch
    checks them: indices broadcast together, dtypes match, the value broadcasts."""
    dims = tuple(d for d, _, _ in advanced)
    arrays = [a for _, a, _ in advanced]
    try:
        index_shape = np.broadcast_shapes(*[a.shape for a in arrays])
    except ValueError:
        shapes = ", ".join(str(list(a.shape)) for a in arrays)
        raise IndexError(
            f"shape mismatch: indexing tensors could not be broadcast together with shapes {shapes}"
        ) from None
    rest = [s for d, s in enumerate(target_shape) if d not in dims]
    if list(dims) == list(range(dims[0], dims[0] + len(dims))):
        result = tuple(rest[: dims[0]] + list(index_shape) + rest[dims[0] :])
    else:
        result = tuple(index_shape) + tuple(rest)
    value_shape = _strip_leading_ones(tuple(value.shape))
    try:
        fits = np.broadcast_shapes(value_shape, result) == result
    except ValueError:
        fits = False
    if not fits or len(value_shape) > len(result):
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(value.shape)} cannot be broadcast to "
            f"indexing result of shape {list(result)}"
        )
    return dims, arrays, value_shape


def _assign(x, value, starts, *arrays, ops, dims, shape):
    """`x` with `value` written at an index (basic `ops` at `starts`, then advanced `dims`),
    as one pure function: the unrecorded item assignment."""
    target = view_of(x, starts, ops=ops)
    if dims is None:
        new = jnp.broadcast_to(jnp.reshape(value, shape).astype(x.dtype), target.shape)
    else:
        new = _index_put(target, value, *arrays, dims=dims, shape=shape)
    return scatter_view(x, new, starts, ops)


_ASSIGN = register("_internal.assign", _assign, node="AssignBackward", differentiable=False)


def setitem(self, index, value) -> None:
    """`tensor[index] = value` (a number or a tensor, broadcast and cast to self's dtype), as
    PyTorch's copy_/fill_ through a view for basic indices (CopySlices in the graph) and
    index_put_ for advanced ones; differentiable in the target (non-leaves) and the value."""
    if self._is_inference and not _grad_mode._state.inference:
        raise RuntimeError(_errors.INFERENCE_INPLACE)
    if host_items.set_item(self, index, value):  # `x[i] = v` into a small CPU tensor
        return
    value = _value_tensor(self, value)
    ops, advanced, single = _parse_index(tuple(self.shape), index, optimize_single_slice=True)
    if single is not None and single[0] == "bool":
        if single[1]:
            advanced = []  # a lone True writes through self.unsqueeze(0)
        elif not isinstance(index, Tensor):
            return  # a lone Python False writes nothing (a False tensor: an empty index_put_)
    layout = layout_of(self)
    for item in ops:
        layout = layout_op(layout, item)
    recorded = _grad_mode._state.enabled and (
        self.requires_grad or (isinstance(value, Tensor) and value._requires_grad)
    )
    # forward AD: a tangent in play takes the recorded path, whose commit carries it
    recorded = recorded or self._fw_grad is not None or getattr(value, "_fw_grad", None) is not None
    target = None
    if advanced:  # index_put_: PyTorch checks the in-place rules first, then the arguments
        if recorded:
            target = _basic_view(self, ops) if ops else self
            check_inplace(target)
        dims, arrays, shape = _index_put_plan(layout[0], advanced, value)
        if isinstance(value, Tensor) and value.dtype is not self.dtype:
            raise RuntimeError(
                "Index put requires the source and destination dtypes match, got "
                f"{scalar_type_name(self.dtype)} for the destination and "
                f"{scalar_type_name(value.dtype)} for the source."
            )
    else:  # copy_to: the value is expanded before copy_ checks the in-place rules
        op, shape = _copy_plan(layout[0], value)
        dims, arrays = None, []
        if recorded:
            target = _basic_view(self, ops) if ops else self
            check_inplace(target)
    if self._storage is not None and isinstance(value, Tensor) and value.ndim:
        assert_no_partial_overlap(self._storage.buffer, layout, value)  # `x[1:] = x[:-1]`
    if not recorded:
        # Nothing to record: one jitted scatter, with the checks of the recorded path.
        if overlapping(layout):
            raise RuntimeError(OVERLAP)
        values = value._value if isinstance(value, Tensor) else value
        static, starts = shaped(ops)
        key = (("ops", static), ("dims", dims), ("shape", shape))
        self._set_value(_ASSIGN.compiled(key)(self._value, values, starts, *arrays))
        self._version_counter[0] += 1
        return
    assert target is not None  # the recorded path set it above
    if advanced:
        result = apply(_INDEX_PUT, target, value, *arrays, dims=dims, shape=shape)
    else:
        result = apply(op, target, value, shape=shape)
    commit_inplace(target, result)


# ----------------------------------------------------------------------------- gather / scatter
def _full_index(index, dim):
    """Index arrays addressing, for every position of `index`, the element it points to."""
    grids = list(jnp.indices(index.shape, sparse=True))
    grids[dim] = index
    return tuple(grids)


def _gather(x, index, *, dim):
    if x.ndim == 0:  # a 0-d tensor acts as a 1-element vector (and so does its index)
        return x.reshape(1)[index.reshape(-1)].reshape(index.shape)
    return x[_full_index(index, dim)]


def _scatter_raw(x, index, src, dim, mode):
    if x.ndim == 0:  # a 0-d tensor acts as a 1-element vector (and so does its index)
        flat_src = src.reshape(-1)[:1] if src.ndim else src
        return _scatter_raw(x.reshape(1), index.reshape(-1)[:1], flat_src, 0, mode).reshape(())
    where = _full_index(index, dim)
    if src.ndim:
        src = src[tuple(slice(0, s) for s in index.shape)]
    src = src.astype(x.dtype)
    if mode == "add":
        return x.at[where].add(src)
    if mode == "multiply":
        return x.at[where].multiply(src)
    return x.at[where].set(src)


def _scatter(x, index, src, *, dim, mode):
    return _scatter_raw(x, index, src, dim, mode)


@functools.cache
def _scatter_reduce_raw(dim: int, mode: str):
    return _no_derivative("scatter", functools.partial(_scatter_raw, dim=dim, mode=mode))


def _scatter_reduce(x, index, src, *, dim, mode):
    """scatter with reduce=: like PyTorch, it has no derivative (a backward through it raises)."""
    return _scatter_reduce_raw(dim, mode)(x, index, src)


_GATHER = register("gather", _gather, node="GatherBackward0", shown_inputs=(0,), saves="others")
_SCATTER = register(
    "scatter", _scatter, node="ScatterBackward0", shown_inputs=(0, 2), saves="others"
)
_SCATTER_VALUE = register(
    "scatter.value", _scatter, node="ScatterBackward1", shown_inputs=(0,), saves="others"
)
_SCATTER_ADD = register(
    "scatter_add", _scatter, node="ScatterAddBackward0", shown_inputs=(0, 2), saves="others"
)
_SCATTER_REDUCE = register(
    "scatter_reduce", _scatter_reduce, node="torch::autograd::NotImplemented", saves="all"
)


def _first_out_of_range(index: Tensor, low: int, high: int) -> int | None:
    """The first value of `index` outside [low, high), or None; the index ops' bounds checks
    (each with PyTorch's own message), skipped where `index` is not concrete (traced)."""
    values = _concrete_index(index)
    if values is None or values.size == 0:
        return None
    bad = values[(values < low) | (values >= high)]
    return int(bad.flat[0]) if bad.size else None


def _check_bounds(
    index: Tensor, size: int, dim: int, allow_negative: bool = False, error=RuntimeError
):
    bad = _first_out_of_range(index, -size if allow_negative else 0, size)
    if bad is not None:
        raise error(f"index {bad} is out of bounds for dimension {dim} with size {size}")


def _gather_checks(fname: str, input: Tensor, dim: int, index: Tensor, src=None) -> int:
    tensor_arg(index, fname, "index", 3)
    if not _is_integral(index.dtype) or index.dtype not in (_dtypes.int64, _dtypes.int32):
        raise RuntimeError(f"{fname}(): Expected dtype int32/int64 for index")
    ndim = max(input.ndim, 1)
    if max(index.ndim, 1) != ndim and index.numel() != 0:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    d = normalize_dim(dim, input.ndim)
    in_shape = tuple(input.shape) or (1,)
    idx_shape = tuple(index.shape) or (1,)
    for axis in range(ndim):
        if axis == d:
            continue
        too_big = idx_shape[axis] > in_shape[axis]
        if src is None and too_big:
            raise RuntimeError(
                f"Size does not match at dimension {axis} expected index {list(index.shape)} "
                f"to be no larger than self {list(input.shape)} apart from dimension {d}"
            )
        if src is not None and (too_big or idx_shape[axis] > (tuple(src.shape) or (1,))[axis]):
            raise RuntimeError(
                f"Expected index {list(index.shape)} to be no larger than self "
                f"{list(input.shape)} apart from dimension {d} and to be no larger size than "
                f"src {list(src.shape)}"
            )
    if src is not None and idx_shape[d] > (tuple(src.shape) or (1,))[d]:
        raise RuntimeError(
            f"Expected index {list(index.shape)} to be no larger than self {list(input.shape)} "
            f"apart from dimension {d} and to be no larger size than src {list(src.shape)}"
        )
    _check_bounds(index, in_shape[d], d)
    return d


@takes_out
@numpy_names
def gather(input, dim: int, index, *, sparse_grad: bool = False):
    """`out[i][j] = input[i][index[i][j]]` (for dim=1): values at `index` along `dim`.

    Example::

        >>> torch.tensor([[1, 2], [3, 4]]).gather(1, torch.tensor([[1], [0]]))
        tensor([[2],
                [3]])
    """
    tensor_arg(input, "gather")
    d = _gather_checks("gather", input, dim, index)
    return apply(_GATHER, input, index, dim=d)


def scatter(input, dim: int, index, src=None, *, value=None, reduce=None):
    """Write `src` (a tensor, or a number `value`) into a copy of `input` at `index` along
    `dim`. With duplicate indices one of the written values wins (unspecified, as in PyTorch).
    `reduce` ("add" or "multiply") combines instead of overwriting."""
    tensor_arg(input, "scatter")
    if src is None:
        src = value
    if src is None:
        raise TypeError("scatter() missing required argument 'src' or 'value'")
    if reduce is not None and reduce not in ("add", "multiply"):
        raise RuntimeError(f"reduce argument must be either add or multiply. Got {reduce}")
    if isinstance(src, Tensor):
        if reduce is not None:
            warnings.warn(
                "The reduce argument of torch.scatter with Tensor src is deprecated and will be "
                "removed in a future PyTorch release. Use torch.scatter_reduce instead for more "
                "reduction options.",
                UserWarning,
                stacklevel=2,
            )
        if src.dtype is not input.dtype:
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
        d = _gather_checks("scatter", input, dim, index, src)
        op = _SCATTER if reduce is None else _SCATTER_REDUCE
    else:
        d = _gather_checks("scatter", input, dim, index)
        src = constant(_dtypes.fit_scalar(src, input.dtype), input.dtype.jax)
        op = _SCATTER_VALUE if reduce is None else _SCATTER_REDUCE
    return apply(op, input, index, src, dim=d, mode=reduce or "set")


@numpy_names
def scatter_add(input, dim: int, index, src):
    """Add `src` into a copy of `input` at `index` along `dim` (duplicates accumulate)."""
    tensor_arg(input, "scatter_add")
    tensor_arg(src, "scatter_add", "src", 3)
    if src.dtype is not input.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    d = _gather_checks("scatter_add", input, dim, index, src)
    return apply(_SCATTER_ADD, input, index, src, dim=d, mode="add")


# ----------------------------------------------------------------------------- index_select...
def _index_select(x, index, *, dim):
    if x.ndim == 0:
        return jnp.take(x.reshape(1), index.reshape(-1)[0])
    return jnp.take(x, index.reshape(-1), axis=dim)


_INDEX_SELECT = register(
    "index_select", _index_select, node="IndexSelectBackward0", shown_inputs=(0,), saves="others"
)


def _vector_index(fname: str, index) -> Tensor:
    tensor_arg(index, fname, "index", 3)
    if index.ndim > 1:
        raise IndexError(f"{fname}(): Index is supposed to be a vector")
    if index.dtype not in (_dtypes.int64, _dtypes.int32):
        raise RuntimeError(f"{fname}(): Expected dtype int32 or int64 for index")
    return index


@takes_out
@numpy_names
def index_select(input, dim: int, index):
    """The slices of `input` at the positions `index` (a 1-D integer tensor) along `dim`."""
    tensor_arg(input, "index_select")
    index = _vector_index("index_select", index)
    d = normalize_dim(dim, input.ndim)
    size = input.shape[d] if input.ndim else 1
    bad = _first_out_of_range(index, 0, size)
    if bad is not None:
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={size}")
    return apply(_INDEX_SELECT, input, index, dim=d)


def _index_add(x, index, source, alpha, *, dim):
    if x.ndim == 0:
        return x + alpha * source.astype(x.dtype) * index.size
    where = (slice(None),) * dim + (index.reshape(-1),)
    return x.at[where].add(alpha * source.astype(x.dtype))


_INDEX_ADD = register(
    "index_add", _index_add, node="IndexAddBackward0", shown_inputs=(0, 2), saves="others"
)


@numpy_names
def index_add(input, dim: int, index, source, *, alpha=1):
    """Add `alpha * source` into a copy of `input` at the positions `index` along `dim`
    (duplicates accumulate)."""
    tensor_arg(input, "index_add")
    index = _vector_index("index_add", index)
    tensor_arg(source, "index_add", "source", 4)
    d = normalize_dim(dim, input.ndim)
    in_shape, src_shape = list(input.shape), list(source.shape)
    expected = in_shape[:d] + [index.numel()] + in_shape[d + 1 :]
    if not input.ndim:
        expected = []
    if src_shape != expected:
        if len(src_shape) != len(in_shape) or src_shape[:d] + src_shape[d + 1 :] != (
            in_shape[:d] + in_shape[d + 1 :]
        ):
            raise RuntimeError(
                "source tensor shape must match self tensor shape, excluding the specified "
                f"dimension. Got self.shape = {in_shape} source.shape = {src_shape}"
            )
        raise RuntimeError(
            f"index_add_(): Number of indices ({index.numel()}) should be equal to "
            f"source.size(dim) ({src_shape[d]})"
        )
    check_same_dtype(
        input, source, "index_add_(): self ({a}) and source ({b}) must have the same scalar type"
    )
    size = input.shape[d] if input.ndim else 1
    if _first_out_of_range(index, 0, size) is not None:
        raise IndexError("index out of range in self")
    a = alpha.item() if isinstance(alpha, Tensor) else alpha
    if _is_integral(input.dtype) or input.dtype is _dtypes.bool:
        a = int(a)
    return apply(_INDEX_ADD, input, index, source, constant(a, input.dtype.jax), dim=d)


def _index_mask(x, index, dim):
    """A boolean array broadcasting against `x`: True on the slices `index` along `dim` (each
    once, whatever the duplicates; a 0-d `x` acts as a 1-element vector)."""
    size = x.shape[dim] if x.ndim else 1
    mask = jnp.zeros(size, bool).at[index.reshape(-1)].set(True)
    return mask.reshape((size,) + (1,) * (x.ndim - dim - 1) if x.ndim else ())


def _index_fill(x, index, value, *, dim):
    return jnp.where(_index_mask(x, index, dim), value.astype(x.dtype), x)


_INDEX_FILL = register(
    "index_fill", _index_fill, node="IndexFillBackward0", shown_inputs=(0,), saves="others"
)
_INDEX_FILL_TENSOR = register(
    "index_fill.tensor", _index_fill, node="IndexFillBackward1", shown_inputs=(0, 2), saves="others"
)


def index_fill(input, dim: int, index, value):
    """A copy of `input` with `value` (a number or a 0-dim tensor) in the slices `index`
    (1-D or 0-D int64, negative counting from the end) along `dim`.

    Example::

        >>> torch.zeros(2, 3).index_fill(1, torch.tensor([0, 2]), 1.0)
        tensor([[1., 0., 1.],
                [1., 0., 1.]])
    """
    tensor_arg(input, "index_fill")
    tensor_arg(index, "index_fill", "index", 3)
    if index.dtype is not _dtypes.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if index.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    d = normalize_dim(dim, input.ndim)
    size = input.shape[d] if input.ndim else 1
    _check_bounds(index, size, d, allow_negative=True, error=IndexError)
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(
                "index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.ndim} dimension(s)."
            )
        return apply(_INDEX_FILL_TENSOR, input, index, value, dim=d)
    value = _dtypes.fit_scalar(value, input.dtype)
    if _is_integral(input.dtype):
        value = int(value)
    return apply(_INDEX_FILL, input, index, constant(value, input.dtype.jax), dim=d)


def _index_copy(x, index, source, *, dim):
    """`x` with slices `index` along `dim` replaced by `source`'s. With duplicate indices one
    write wins, yet each source slice gets its gradient, as PyTorch's index_select backward
    gives: the value is the scatter's, the derivative the scatter-add's."""
    if x.ndim == 0:
        return source.reshape(())
    where = (slice(None),) * dim + (index.reshape(-1),)
    source = source.reshape(x.shape[:dim] + (-1,) + x.shape[dim + 1 :])
    added = jnp.zeros_like(x).at[where].add(source)
    placed = jnp.zeros_like(x).at[where].set(source)
    return jnp.where(_index_mask(x, index, dim), added + lax.stop_gradient(placed - added), x)


_INDEX_COPY = register(
    "index_copy", _index_copy, node="IndexCopyBackward0", shown_inputs=(0, 2), saves="others"
)


@numpy_names
def index_copy(input, dim: int, index, source):
    """A copy of `input` with the slices `index` (int64, non-negative) along `dim` replaced
    by those of `source`, in order (with duplicate indices, which one wins is unspecified)."""
    tensor_arg(input, "index_copy")
    tensor_arg(index, "index_copy", "index", 3)
    tensor_arg(source, "index_copy", "source", 4)
    d = normalize_dim(dim, input.ndim)
    if index.ndim > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.ndim})")
    n = index.numel()
    if source.ndim == 0 and n != 1:
        raise IndexError(
            f"index_copy_(): When source is scalar, index should have one element (got {n})"
        )
    if source.ndim != input.ndim and source.ndim and input.ndim:
        raise IndexError(
            "index_copy_(): When source and destination are not scalars, their dimensionality "
            f"must match. Source dimensionality ({source.ndim}), destination dimensionality "
            f"({input.ndim})"
        )
    if index.dtype is not _dtypes.int64:
        raise RuntimeError(
            "index_copy_(): Expected a long tensor for index, but got "
            f"{scalar_type_name(index.dtype)}"
        )
    check_same_dtype(
        input,
        source,
        "index_copy_(): self and source expected to have the same dtype, but got (self) {a} and "
        "(source) {b}",
    )
    in_rest = input.shape[:d] + input.shape[d + 1 :]
    src_rest = source.shape[:d] + source.shape[d + 1 :]
    if in_rest != src_rest:
        raise RuntimeError(
            "index_copy_(): Source/destination tensor must have same slice shapes. Destination "
            f"slice shape: {' '.join(map(str, in_rest))} at dimension {d} and source slice "
            f"shape: {' '.join(map(str, src_rest))} at dimension 0."
        )
    if source.ndim and n != source.shape[d]:
        raise IndexError(
            f"index_copy_(): Number of indices ({n}) should be equal to source.size(dim) "
            f"({source.shape[d]})"
        )
    size = input.shape[d] if input.ndim else 1
    bad = _first_out_of_range(index, 0, size)
    if bad is not None:
        raise IndexError(
            f"index_copy_(): index {bad} is out of bounds for dimension {d} with size {size}"
        )
    return apply(_INDEX_COPY, input, index, source, dim=d)


# ----------------------------------------------------------------------------- masks
def _masked_fill(x, mask, value):
    return jnp.where(mask, value.astype(x.dtype), x)


_MASKED_FILL = register(
    "masked_fill", _masked_fill, node="MaskedFillBackward0", shown_inputs=(0,), saves="others"
)
_MASKED_FILL_TENSOR = register(
    "masked_fill.tensor",
    _masked_fill,
    node="MaskedFillBackward1",
    shown_inputs=(0, 2),
    saves="others",
)


def _check_mask(fname: str, mask) -> Tensor:
    tensor_arg(mask, fname, "mask", 2)
    if mask.dtype is not _dtypes.bool:
        raise RuntimeError(
            f"{fname} only supports boolean masks, but got mask with dtype {_ctype(mask.dtype)}"
        )
    return mask


def masked_fill(input, mask, value):
    """A copy of `input` with `value` (a number or 0-dim tensor) where `mask` is true.

    Example::

        >>> torch.zeros(3).masked_fill(torch.tensor([True, False, True]), 2.0)
        tensor([2., 0., 2.])
    """
    tensor_arg(input, "masked_fill")
    _check_mask("masked_fill_", mask)
    if input.shape != mask.shape:
        broadcast_shapes(tuple(mask.shape), tuple(input.shape))
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.ndim} dimension(s)."
            )
        return apply(_MASKED_FILL_TENSOR, input, mask, value)
    if _is_integral(input.dtype) or input.dtype is _dtypes.bool:
        if isinstance(value, float) and not math.isfinite(value):
            raise RuntimeError(
                f"value cannot be converted to type {_ctype(input.dtype)} without overflow"
            )
        value = _dtypes.fit_scalar(value, input.dtype)
        value = int(value) if input.dtype is not _dtypes.bool else bool(value)
    return apply(_MASKED_FILL, input, mask, constant(value, input.dtype.jax))


def _masked_select(x, positions, *, shape):
    return jnp.broadcast_to(x, shape).reshape(-1)[positions]


_MASKED_SELECT = register(
    "masked_select", _masked_select, node="MaskedSelectBackward0", shown_inputs=(0,), saves="others"
)


@takes_out
def masked_select(input, mask):
    """The elements of `input` where `mask` is true, as a 1-D tensor (broadcasting both).

    The output size depends on the mask's values, so the mask must be concrete: this runs
    eagerly and raises under a jax trace.
    """
    tensor_arg(input, "masked_select")
    tensor_arg(mask, "masked_select", "mask", 2)
    if mask.dtype is not _dtypes.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    _needs_concrete("masked_select", mask)
    shape = broadcast_shapes(tuple(input.shape), tuple(mask.shape))
    flat = np.broadcast_to(np.asarray(mask._value), shape).reshape(-1)
    positions = np.flatnonzero(flat).astype(np.int64)
    return apply(_MASKED_SELECT, input, jnp.asarray(positions), shape=tuple(shape))


def _masked_scatter(x, source, positions, *, shape):
    flat = jnp.broadcast_to(x, shape).reshape(-1)
    return flat.at[positions].set(source.reshape(-1)[: positions.size]).reshape(shape)


_MASKED_SCATTER = register(
    "masked_scatter",
    _masked_scatter,
    node="MaskedScatterBackward0",
    shown_inputs=(0, 1),
    saves="others",
)


def masked_scatter(input, mask, source):
    """A copy of `input` (broadcast with the boolean `mask`) whose elements where `mask` is
    true are the first elements of `source`, in row-major order. The mask must be concrete
    (not under a jax trace): the positions written depend on its values."""
    tensor_arg(input, "masked_scatter")
    tensor_arg(mask, "masked_scatter", "mask", 1)
    tensor_arg(source, "masked_scatter", "source", 2)
    if mask.dtype is not _dtypes.bool:
        raise RuntimeError(
            "masked_scatter_ only supports boolean masks, but got mask with dtype "
            f"{scalar_type_name(mask.dtype)}"
        )
    check_same_dtype(
        input,
        source,
        "masked_scatter: expected self and source to have same dtypes but got{a} and {b}",
    )
    _needs_concrete("masked_scatter", mask)
    shape = broadcast_shapes(tuple(mask.shape), tuple(input.shape))
    flat = np.broadcast_to(np.asarray(mask._value), shape).reshape(-1)
    positions = np.flatnonzero(flat).astype(np.int64)
    if positions.size > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return apply(_MASKED_SCATTER, input, source, jnp.asarray(positions), shape=tuple(shape))


@takes_out
def nonzero(input, *, as_tuple: bool = False):
    """The indices of the nonzero elements: an int64 (count, ndim) tensor, or with as_tuple a
    tuple of 1-D tensors, one per dim. Runs eagerly (the count depends on the values); raises
    under a jax trace."""
    tensor_arg(input, "nonzero")
    _needs_concrete("nonzero", input)
    array = np.asarray(input._value)
    if array.ndim == 0:
        array = array.reshape(1)
        if as_tuple:
            return (Tensor._wrap(jnp.asarray(np.flatnonzero(array).astype(np.int64))),)
        return Tensor._wrap(jnp.zeros((int(bool(array[0])), 0), jnp.int64))
    positions = np.nonzero(array)
    if as_tuple:
        return tuple(Tensor._wrap(jnp.asarray(p.astype(np.int64))) for p in positions)
    return Tensor._wrap(jnp.asarray(np.stack(positions, axis=1).astype(np.int64)))


def argwhere(input):
    """The indices of the nonzero elements, one row per element: `nonzero(input)`."""
    tensor_arg(input, "argwhere")
    _needs_concrete("argwhere", input)
    return nonzero(input)


_TAKE = register(
    "take",
    lambda x, index: x.reshape(-1)[index],
    node="TakeBackward0",
    shown_inputs=(0,),
    saves="others",
)


def _check_flat_index(index: Tensor, n: int) -> None:
    """take's and put's check that every flat position lies in [-n, n)."""
    bad = _first_out_of_range(index, -n, n)
    if bad is not None:
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")


def take(input, index):
    """The elements of the flattened `input` at `index` (negative indices count from the end);
    the result has the shape of `index`."""
    tensor_arg(input, "take")
    tensor_arg(index, "take", "index", 2)
    if index.dtype is not _dtypes.int64:
        raise RuntimeError(
            f"take(): Expected a long tensor for index, but got {scalar_type_name(index.dtype)}"
        )
    _check_flat_index(index, input.numel())
    return apply(_TAKE, input, index)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Repeat each element (each slice along `dim`) `repeats` times; `repeats` is an int or a
    1-D tensor with one count per slice. `repeat_interleave(counts)` gives the indices
    0, 0, ..., 1, ... repeated by `counts`."""
    tensor_arg(input, "repeat_interleave")
    _needs_concrete("repeat_interleave", input if repeats is None else repeats)
    counted = input if repeats is None else repeats
    if isinstance(counted, Tensor):
        require_kernel("repeat_interleave_cpu", counted._stored.dtype, INDEX)
    if repeats is None:
        counts = np.asarray(input._value)
        return _factories.tensor(np.repeat(np.arange(counts.size), counts))
    if dim is None:
        input, dim = reshape(input, -1), 0
    d = normalize_dim(dim, input.ndim)
    if isinstance(repeats, Tensor):
        counts = np.asarray(repeats._value).reshape(-1)
        if counts.size == 1:
            counts = np.repeat(counts, input.shape[d])
        if counts.size != input.shape[d]:
            raise RuntimeError(
                "repeats must have the same size as input along dim, but got repeats.size(0) "
                f"= {counts.size} and input.size({d}) = {input.shape[d]}"
            )
        if (counts < 0).any():
            raise RuntimeError("repeats can not be negative")
        index = _factories.tensor(np.repeat(np.arange(counts.size), counts))
        return index_select(input, d, index)
    r = int(repeats)
    if r < 0:
        raise RuntimeError("repeats can not be negative")
    shape = tuple(input.shape)
    expanded = expand(unsqueeze(input, d + 1), shape[: d + 1] + (r,) + shape[d + 1 :])
    return reshape(expanded, shape[:d] + (shape[d] * r,) + shape[d + 1 :])


@takes_out
@numpy_names
def take_along_dim(input, indices, dim=None):
    """The values of `input` at `indices` along `dim` (of the flattened input when None);
    input and indices broadcast over the other dims."""
    tensor_arg(input, "take_along_dim")
    tensor_arg(indices, "take_along_dim", "indices", 2)
    if indices.dtype is not _dtypes.int64:
        raise RuntimeError(
            "torch.take_along_dim(): dtype of indices should be Long but got "
            f"{scalar_type_name(indices.dtype)}"
        )
    if dim is None:
        return gather(reshape(input, -1), 0, reshape(indices, -1))
    if input.ndim != indices.ndim:
        raise RuntimeError(
            "torch.take_along_dim(): input and indices should have the same number of "
            f"dimensions, but got {input.ndim} dimensions for input, and {indices.ndim} "
            "dimensions for indices"
        )
    d = normalize_dim(dim, input.ndim)
    others = [tuple(t.shape[:d]) + (1,) + tuple(t.shape[d + 1 :]) for t in (input, indices)]
    shape = list(jnp.broadcast_shapes(*others))
    in_shape, idx_shape = list(shape), list(shape)
    in_shape[d], idx_shape[d] = input.shape[d], indices.shape[d]
    return gather(expand(input, tuple(in_shape)), d, expand(indices, tuple(idx_shape)))
