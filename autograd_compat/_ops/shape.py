"""Shape ops and views: view/reshape, transpose/mT/mH/adjoint, permute, squeeze, expand,
narrow, select, diagonal (and fill_diagonal_), unbind, indexing and item assignment, clone,
contiguous and casts.

View ops return tensors that share memory with their input (`_views.make_view`): an in-place
change through either is seen by the other, as in PyTorch. Every view op is a registered op
whose pure function is `_views.view_of` with a static tuple of primitive view ops, so its
gradient is jax.vjp of that function. Item assignment creates the same views and writes
through them (`copy_`/`fill_`), or scatters with `index_put_` for advanced indices.
"""

from __future__ import annotations

import math
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from .._pure import device as _device
from .._pure import dtypes as _dtypes
from .._pure import errors as _errors
from .._pure.op import constant, register
from .._pure.shapes import infer_shape, normalize_dim, shape_args
from .._state import modes as _grad_mode
from .._state.modes import modes
from .._state.tensor import Tensor
from .._tape.args import check_inplace, commit_inplace, scalar_type_name, tensor_arg
from .._tape.record import apply
from .._tape.views import (
    OVERLAP,
    Alias,
    assert_no_partial_overlap,
    compute_stride,
    contiguous_strides,
    expand_geometry,
    is_contiguous,
    layout_of,
    layout_op,
    make_view,
    overlapping,
    scatter,
    view_of,
)


def _view_op(op_id: str, node: str):
    return register(op_id, view_of, node=node, saves="none")


_VIEW = _view_op("view", "ViewBackward0")
_RESHAPE_ALIAS = _view_op("reshape.alias", "ReshapeAliasBackward0")
_UNSAFE_VIEW = _view_op("reshape.unsafe_view", "UnsafeViewBackward0")
_TRANSPOSE = _view_op("transpose", "TransposeBackward0")
_TRANSPOSE_INPLACE = _view_op("transpose_", "TransposeBackward1")
_T = _view_op("t", "TBackward0")
_T_INPLACE = _view_op("t_", "TBackward1")
_PERMUTE = _view_op("permute", "PermuteBackward0")
_SQUEEZE = [  # 0-2 out of place, 3-5 in place
    _view_op(op_id, f"SqueezeBackward{i}")
    for i, op_id in enumerate(
        ("squeeze", "squeeze.dim", "squeeze.dims", "squeeze_", "squeeze_.dim", "squeeze_.dims")
    )
]
_UNSQUEEZE = _view_op("unsqueeze", "UnsqueezeBackward0")
_UNSQUEEZE_INPLACE = _view_op("unsqueeze_", "UnsqueezeBackward1")
_EXPAND = _view_op("expand", "ExpandBackward0")
_SELECT = _view_op("select", "SelectBackward0")
_SLICE = _view_op("slice", "SliceBackward0")
_ALIAS = _view_op("alias", "AliasBackward0")
_DIAGONAL = _view_op("diagonal", "DiagonalBackward0")
_BY_LAST_OP = {"select": _SELECT, "slice": _SLICE, "unsqueeze": _UNSQUEEZE, None: _ALIAS}

_CLONE = register("clone", lambda x: jnp.array(x, copy=True), node="CloneBackward0", saves="none")
_CAST = register(
    "to.dtype", lambda x, *, dtype: x.astype(dtype), node="ToCopyBackward0", saves="none"
)
_TO_DEVICE = register(
    "to.device",
    lambda x, *, device, dtype: jax.device_put(x.astype(dtype), device),
    node="ToCopyBackward0",
    saves="none",
)
_UNBIND = register(
    "unbind", lambda x, *, dim: tuple(jnp.moveaxis(x, dim, 0)), node="UnbindBackward0", saves="none"
)

__all__ = [
    "adjoint",
    "clone",
    "diagonal",
    "expand_copy",
    "narrow",
    "permute",
    "reshape",
    "select",
    "squeeze",
    "t",
    "transpose",
    "unbind",
    "unsqueeze",
]

_T_DEPRECATED = (
    "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
    "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
    "matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
    "tensor."
)
_T_0D = "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases."
_VIEW_STRIDE = (
    "view size is not compatible with input tensor's size and stride (at least one dimension "
    "spans across two contiguous subspaces). Use .reshape(...) instead."
)
_SEQUENCE_INDEX = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed "
    "in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
    "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error or "
    "a different result"
)
_UINT8_INDEX = (
    "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead."
)


def _view(op, input: Tensor, ops: tuple, layout: tuple | None = None) -> Tensor:
    """Apply a view op (recorded as `op`) and make the result a view of `input`."""
    return make_view(input, apply(op, input, ops=ops), ops, layout)


def _inplace_view(self: Tensor, op, ops: tuple) -> Tensor:
    """A view op applied to `self` in place (t_, squeeze_...): same memory, new geometry."""
    check_inplace(self)
    out = apply(op, self, ops=ops)
    rec = self._storage
    if rec is not None:
        layout = layout_of(self)
        for item in ops:
            layout = layout_op(layout, item)
        new = Alias(rec.buffer, rec.spec + ops, rec.base, rec.creation, layout, 0)
        new.leaf = rec.leaf
        self._storage = new  # a new record: another tensor may share the old one
    self._value = out._value
    self._version_counter[0] += 1
    if out._grad_fn is not None:
        self._grad_fn = out._grad_fn
        self.output_nr = 0
        self._requires_grad = True
    if self._storage is not None:
        self._storage.attr_version = self._version_counter[0]
    return self


# ----------------------------------------------------------------------------- reshaping
def _view_shape(input: Tensor, shape: tuple) -> tuple:
    return infer_shape(shape_args(shape), input.numel())


def reshape(input, *shape):
    """The same elements in a new shape (one size may be -1): a view when the memory layout
    allows one (always for contiguous tensors), else a copy, as in PyTorch.

    Example::

        >>> torch.arange(6).reshape(2, 3)
        tensor([[0, 1, 2],
                [3, 4, 5]])
    """
    tensor_arg(input, "reshape")
    shape = _view_shape(input, shape)
    ops = (("view", shape),)
    if input._storage is None:
        return _view(_VIEW, input, ops, (shape, contiguous_strides(shape), 0))
    layout = layout_of(input)
    strides = compute_stride(layout[0], layout[1], shape)
    if strides is None:
        return apply(_UNSAFE_VIEW, apply(_CLONE, input), ops=ops)
    op = _VIEW if is_contiguous(layout) else _RESHAPE_ALIAS
    return _view(op, input, ops, (shape, strides, layout[2]))


def view(input, *shape):
    """A view with a new shape (one size may be -1); the memory layout must allow it (use
    reshape otherwise). `view(dtype)` is not supported."""
    if len(shape) == 1 and isinstance(shape[0], (_dtypes.dtype, type, np.dtype)):
        raise NotImplementedError("view(dtype) is not supported; use .to(dtype)")
    tensor_arg(input, "view")
    shape = _view_shape(input, shape)
    if input._storage is None:
        layout = (shape, contiguous_strides(shape), 0)
    else:
        old = layout_of(input)
        strides = compute_stride(old[0], old[1], shape)
        if strides is None:
            raise RuntimeError(_VIEW_STRIDE)
        layout = (shape, strides, old[2])
    return _view(_VIEW, input, (("view", shape),), layout)


def view_as(input, other):
    """`input.view(other.size())`."""
    return view(input, other.shape)


def reshape_as(input, other):
    """`input.reshape(other.size())`."""
    return reshape(input, other.shape)


def _permutation(ndim: int, dim0: int, dim1: int) -> tuple:
    perm = list(range(ndim))
    perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
    return tuple(perm)


def transpose(input, dim0: int, dim1: int):
    """A view with dimensions `dim0` and `dim1` swapped."""
    tensor_arg(input, "transpose")
    dim0, dim1 = normalize_dim(dim0, input.ndim), normalize_dim(dim1, input.ndim)
    return _view(_TRANSPOSE, input, (("permute", _permutation(input.ndim, dim0, dim1)),))


def transpose_(self, dim0: int, dim1: int):
    """Swap two dimensions of `self` in place."""
    dim0, dim1 = normalize_dim(dim0, self.ndim), normalize_dim(dim1, self.ndim)
    return _inplace_view(
        self, _TRANSPOSE_INPLACE, (("permute", _permutation(self.ndim, dim0, dim1)),)
    )


def _check_t(input, name: str = "t") -> None:
    if input.ndim > 2:
        raise RuntimeError(
            f"{name}() expects a tensor with <= 2 dimensions, but self is {input.ndim}D"
        )


def t(input):
    """Transpose a tensor of at most two dimensions (a view)."""
    tensor_arg(input, "t")
    _check_t(input)
    return _view(_T, input, (("permute", tuple(reversed(range(input.ndim)))),))


def t_(self):
    """Transpose `self` (at most two dimensions) in place."""
    _check_t(self, "t_")
    return _inplace_view(self, _T_INPLACE, (("permute", tuple(reversed(range(self.ndim)))),))


def _T_property(self):
    if self.ndim == 0:
        warnings.warn(_T_0D, UserWarning, stacklevel=2)
    elif self.ndim != 2:
        warnings.warn(_T_DEPRECATED, UserWarning, stacklevel=2)
    return _view(_PERMUTE, self, (("permute", tuple(reversed(range(self.ndim)))),))


def _matrix_transpose(self, name: str, zero_d: str):
    """mT, mH and adjoint(): the last two dims swapped (a view); a 0-D tensor is returned
    as is, with PyTorch's deprecation warning. Conjugate views are not supported, so the
    conjugating forms refuse complex tensors."""
    if self.ndim == 0:
        warnings.warn(zero_d, UserWarning, stacklevel=3)
        return self
    if self.ndim < 2:
        raise RuntimeError(
            f"{name} is only supported on matrices or batches of matrices. Got "
            f"{self.ndim}-D tensor."
        )
    if name != "tensor.mT" and self.dtype.is_complex:
        raise NotImplementedError(f"{name} of a complex tensor (a conjugate view) is not supported")
    perm = _permutation(self.ndim, self.ndim - 2, self.ndim - 1)
    return _view(_TRANSPOSE, self, (("permute", perm),))


def _mT_property(self):
    return _matrix_transpose(
        self,
        "tensor.mT",
        "Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases.",
    )


def _mH_property(self):
    return _matrix_transpose(
        self, "tensor.mH", "Tensor.mH is deprecated on 0-D tensors. Consider using x.conj()."
    )


def adjoint(input):
    """The conjugate transpose of the last two dims (a view; real tensors only here)."""
    tensor_arg(input, "adjoint")
    return _matrix_transpose(
        input,
        "tensor.adjoint()",
        "adjoint() is deprecated on 0-D tensors. Consider using x.conj().",
    )


def _H_property(self):
    if self.ndim not in (0, 2):
        hint = " For batches of matrices, consider using tensor.mH" if self.ndim > 2 else ""
        raise RuntimeError(
            f"tensor.H is only supported on matrices (2-D tensors). Got {self.ndim}-D tensor.{hint}"
        )
    return _matrix_transpose(
        self, "tensor.H", "Tensor.H is deprecated on 0-D tensors. Consider using x.conj()."
    )


def _dims_args(dims: tuple) -> tuple:
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    return tuple(int(d) for d in dims)


def permute(input, *dims):
    """A view with the dimensions reordered: output dim i is input dim `dims[i]`."""
    tensor_arg(input, "permute")
    dims = _dims_args(dims)
    if len(dims) != input.ndim:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            "length of the desired ordering of dimensions i.e. input.dim() = "
            f"{input.ndim} is not equal to len(dims) = {len(dims)}"
        )
    dims = tuple(normalize_dim(d, input.ndim) for d in dims)
    if len(set(dims)) != len(dims):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return _view(_PERMUTE, input, (("permute", dims),))


def _squeeze_dims(input, dim) -> tuple[tuple, int]:
    """(dims of size 1 to drop, which SqueezeBackward variant) for squeeze(dim)."""
    shape = input.shape
    if dim is None:
        return tuple(i for i, s in enumerate(shape) if s == 1), 0
    if isinstance(dim, (tuple, list)):
        dims = [normalize_dim(d, input.ndim) for d in dim]
        for i, d in enumerate(dims):
            if d in dims[:i]:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        if not input.ndim:
            return (), 2
        return tuple(sorted(d for d in dims if shape[d] == 1)), 2
    d = normalize_dim(dim, input.ndim)
    return ((d,) if input.ndim and shape[d] == 1 else ()), 1


def squeeze(input, dim=None):
    """A view without the dimensions of size 1 (all, or those among `dim`)."""
    tensor_arg(input, "squeeze")
    dims, variant = _squeeze_dims(input, dim)
    return _view(_SQUEEZE[variant], input, (("squeeze", dims),))


def squeeze_(self, dim=None):
    """Squeeze `self` in place."""
    dims, variant = _squeeze_dims(self, dim)
    return _inplace_view(self, _SQUEEZE[variant + 3], (("squeeze", dims),))


def unsqueeze(input, dim: int):
    """A view with a dimension of size 1 inserted at `dim`."""
    tensor_arg(input, "unsqueeze")
    dim = normalize_dim(dim, input.ndim + 1)
    return _view(_UNSQUEEZE, input, (("unsqueeze", dim),))


def unsqueeze_(self, dim: int):
    """Insert a dimension of size 1 into `self` in place."""
    dim = normalize_dim(dim, self.ndim + 1)
    return _inplace_view(self, _UNSQUEEZE_INPLACE, (("unsqueeze", dim),))


def expand(input, *sizes):
    """A view broadcasting dimensions of size 1 to `sizes` (-1 keeps a size); no copy: the
    expanded elements share memory, so in-place changes other than fills are refused."""
    if len(sizes) > 1 and any(isinstance(s, (tuple, list)) for s in sizes):
        raise TypeError(f"expand() takes 1 positional argument but {len(sizes)} were given")
    sizes = shape_args(sizes)
    shape, strides, offset = layout_of(input)
    type_name = _dtypes.LEGACY_TYPE_NAMES[input.dtype]
    sizes, new_strides = expand_geometry(shape, strides, sizes, type_name)
    return _view(_EXPAND, input, (("expand", sizes),), (sizes, new_strides, offset))


def expand_as(input, other):
    """`input.expand(other.size())`."""
    return expand(input, tuple(other.shape))


def expand_copy(input, *sizes):
    """Like expand, but a new tensor (no shared memory)."""
    return clone(expand(input, *sizes))


def _as_int(value) -> int:
    return int(value.item()) if isinstance(value, Tensor) else int(value)


def narrow(input, dim: int, start, length: int):
    """A view of `length` elements of dimension `dim` from `start` (which may be negative)."""
    tensor_arg(input, "narrow")
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    start, length = _as_int(start), _as_int(length)
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    dim = normalize_dim(dim, input.ndim)
    size = input.shape[dim]
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})"
        )
    if start < 0:
        start += size
    if start > size - length:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return _view(_SLICE, input, (("slice", dim, start, start + length, 1),))


def select(input, dim: int, index):
    """A view of the slice at `index` along `dim` (that dimension removed)."""
    tensor_arg(input, "select")
    if input.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = normalize_dim(dim, input.ndim)
    index = _as_int(index)
    size = input.shape[dim]
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(input.shape)} at "
            f"dimension {dim}"
        )
    return _view(_SELECT, input, (("select", dim, index % size),))


def diagonal(input, offset: int = 0, dim1: int = 0, dim2: int = 1):
    """A view of the diagonal of the `dim1` x `dim2` matrices, as the last dimension."""
    tensor_arg(input, "diagonal")
    d1, d2 = normalize_dim(dim1, input.ndim), normalize_dim(dim2, input.ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return _view(_DIAGONAL, input, (("diagonal", int(offset), d1, d2),))


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


def unbind(input, dim: int = 0):
    """The slices along `dim`, as a tuple of views (which may not be modified in place
    while recorded: they are outputs of one multi-output op)."""
    tensor_arg(input, "unbind")
    if input.ndim == 0:
        raise RuntimeError("Dimension specified as 0 but tensor has no dimensions")
    dim = normalize_dim(dim, input.ndim)
    outs = apply(_UNBIND, input, dim=dim)
    return tuple(
        make_view(input, out, (("select", dim, i),), multi=True) for i, out in enumerate(outs)
    )


def clone(input, *, memory_format=None):
    """A copy that stays connected to the graph (never a view)."""
    tensor_arg(input, "clone")
    return apply(_CLONE, input)


def contiguous(self, memory_format=None):
    """`self` when its memory layout is row-major, else a contiguous copy (CloneBackward0)."""
    if self._storage is None or is_contiguous(layout_of(self)):
        return self
    return apply(_CLONE, self)


def _parse_to_args(self, args, kwargs):
    dtype, device = kwargs.pop("dtype", None), kwargs.pop("device", None)
    kwargs.pop("non_blocking", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
    for arg in args:
        if isinstance(arg, Tensor):
            dtype, device = arg.dtype, arg.device
        elif isinstance(arg, (_dtypes.dtype, type, np.dtype)):
            dtype = arg
        elif isinstance(arg, (str, int, _device.device)):
            device = arg
        elif isinstance(arg, bool):
            continue
        else:
            raise TypeError(f"to() received an invalid argument of type {type(arg).__name__}")
    return dtype, device, copy


def to(self, *args, **kwargs):
    """Cast to a dtype and/or move to a device; returns self when nothing changes."""
    dtype, device, copy = _parse_to_args(self, args, dict(kwargs))
    dtype = _dtypes.as_dtype(dtype) if dtype is not None else self.dtype
    if device is not None:
        target = _device.to_jax(device)
        if _device.from_jax(target) != self.device or copy:
            return apply(_TO_DEVICE, self, device=target, dtype=dtype.jax)
    if dtype is self.dtype:
        return self.clone() if copy else self
    return apply(_CAST, self, dtype=dtype.jax)


def _cast_method(d):
    def cast(self, memory_format=None):
        return to(self, d)

    cast.__name__ = d.name
    return cast


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
    raise IndexError(
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
        if kind[0] in ("int", "slice"):
            specified += 1
        elif kind[0] == "array":
            array = kind[1]
            specified += array.ndim if array.dtype in _MASK_DTYPES else 1
    if specified > len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
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


def _advanced_key(x, *arrays, ops, dims):
    x = view_of(x, ops=ops)
    index = [slice(None)] * x.ndim
    for d, a in zip(dims, arrays):
        index[d] = a
    return x, tuple(index)


def _index(x, *arrays, ops, dims):
    x, index = _advanced_key(x, *arrays, ops=ops, dims=dims)
    return x[index]


def _index_put(x, value, *arrays, dims, shape):
    _, index = _advanced_key(x, *arrays, ops=(), dims=dims)
    value = jnp.reshape(value, shape).astype(x.dtype)
    return x.at[index].set(value, unique_indices=True)  # duplicates: each gets the gradient


# saves="others": the vjp needs the index arrays (never the indexed tensor)
_INDEX = register("index", _index, node="IndexBackward0", shown_inputs=(0,), saves="others")
_INDEX_PUT = register(
    "index_put", _index_put, node="IndexPutBackward0", shown_inputs=(0, 1), saves="others"
)


def _broadcast_copy(dst, src, *, shape):
    return jnp.broadcast_to(jnp.reshape(src, shape).astype(dst.dtype), dst.shape)


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
        return apply(_INDEX, _basic_view(self, ops), *arrays, ops=(), dims=dims)
    return apply(_INDEX, self, *arrays, ops=ops, dims=dims)


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
            raise RuntimeError(
                f"value cannot be converted to type {_dtypes.LEGACY_TYPE_NAMES[self.dtype]} "
                "without overflow"
            )
        return constant(value.item() if isinstance(value, np.generic) else value, self.dtype.jax)
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


def _assign(x, value, *arrays, ops, dims, shape):
    """`x` with `value` written at an index (basic `ops`, then advanced `dims`), as one pure
    function: the unrecorded item assignment."""
    target = view_of(x, ops=ops)
    if dims is None:
        new = jnp.broadcast_to(jnp.reshape(value, shape).astype(x.dtype), target.shape)
    else:
        new = _index_put(target, value, *arrays, dims=dims, shape=shape)
    return scatter(x, new, ops)


_ASSIGN = register("_internal.assign", _assign, node="AssignBackward", differentiable=False)


def setitem(self, index, value) -> None:
    """`tensor[index] = value` (a number or a tensor, broadcast and cast to self's dtype), as
    PyTorch's copy_/fill_ through a view for basic indices (CopySlices in the graph) and
    index_put_ for advanced ones; differentiable in the target (non-leaves) and the value."""
    if self._is_inference and not _grad_mode._state.inference:
        raise RuntimeError(_errors.INFERENCE_INPLACE)
    value = _value_tensor(self, value)
    if index is False or (isinstance(index, np.bool_) and not index):
        return
    ops, advanced, single = _parse_index(tuple(self.shape), index, optimize_single_slice=True)
    if single is not None and single[0] == "bool":
        advanced = []  # a lone True writes through self.unsqueeze(0)
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
        key = (("ops", ops), ("dims", dims), ("shape", shape))
        self._set_value(_ASSIGN.compiled(key)(self._value, values, *arrays))
        self._version_counter[0] += 1
        return
    assert target is not None  # the recorded path set it above
    if advanced:
        result = apply(_INDEX_PUT, target, value, *arrays, dims=dims, shape=shape)
    else:
        result = apply(op, target, value, shape=shape)
    commit_inplace(target, result)


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
