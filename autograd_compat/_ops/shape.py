"""Shape ops and views: view/reshape, transpose/mT/mH/adjoint, permute, squeeze/unsqueeze,
expand/broadcast_to, narrow, select, diagonal, unbind, clone/contiguous, flatten/unflatten/
ravel, movedim/swapaxes, cat/stack, split/chunk/tensor_split, flip/fliplr/flipud/roll/rot90,
repeat/tile, and constant pad.

View ops return tensors that share memory with their input (`_views.make_view`): an in-place
change through either is seen by the other, as in PyTorch. Every view op is a registered op
whose pure function is `_views.view_of` of a static tuple of primitive view ops and their
positions (a runtime input: `x[i]` compiles once for every `i`), so its gradient is jax.vjp of
that function. split, chunk and tensor_split return views of their
input, and flatten, unflatten, movedim and swapaxes do where PyTorch's do.
"""

from __future__ import annotations

import itertools
import math
import warnings

import jax.numpy as jnp
import numpy as np
from jax import lax

from .._pure import dtypes as _dtypes
from .._pure import errors as _errors
from .._pure.op import register
from .._pure.shapes import (
    Size,
    infer_shape,
    normalize_dim,
    shape_args,
    unique_dims,
)
from .._pure.shapes import (
    broadcast_shapes as _broadcast_two,
)
from .._pure.strides import compute_stride, expand_geometry, is_contiguous, layout_op, plain_layout
from .._state.modes import modes
from .._state.tensor import Tensor
from .._tape import wide as _wide
from .._tape.args import check_inplace, is_tracer, numpy_names, scalar_type_name, tensor_arg
from .._tape.record import apply
from .._tape.views import Alias, layout_of, make_view, record_of, shaped, view_of, view_on_host
from .out_arg import takes_out

__all__ = [
    "adjoint",
    "broadcast_shapes",
    "broadcast_tensors",
    "broadcast_to",
    "cat",
    "chunk",
    "clone",
    "concat",
    "concatenate",
    "diagonal",
    "expand_copy",
    "flatten",
    "flip",
    "fliplr",
    "flipud",
    "moveaxis",
    "movedim",
    "narrow",
    "permute",
    "ravel",
    "reshape",
    "roll",
    "rot90",
    "select",
    "split",
    "squeeze",
    "stack",
    "swapaxes",
    "swapdims",
    "t",
    "tensor_split",
    "tile",
    "transpose",
    "unbind",
    "unflatten",
    "unsqueeze",
]


def _view_op(op_id: str, node: str, host=None):
    return register(op_id, view_of, node=node, saves="positions", shown_inputs=(0,), host=host)


def _reshape_op(op_id: str, node: str):
    """A view op that only reshapes: on CPU its result shares the input's buffer."""
    return _view_op(op_id, node, view_on_host)


_VIEW = _reshape_op("view", "ViewBackward0")
_RESHAPE_ALIAS = _reshape_op("reshape.alias", "ReshapeAliasBackward0")
_UNSAFE_VIEW = _reshape_op("reshape.unsafe_view", "UnsafeViewBackward0")
_TRANSPOSE = _view_op("transpose", "TransposeBackward0")
_TRANSPOSE_INPLACE = _view_op("transpose_", "TransposeBackward1")
_T = _view_op("t", "TBackward0")
_T_INPLACE = _view_op("t_", "TBackward1")
_PERMUTE = _view_op("permute", "PermuteBackward0")
_SQUEEZE = [  # 0-2 out of place, 3-5 in place
    _reshape_op(op_id, f"SqueezeBackward{i}")
    for i, op_id in enumerate(
        ("squeeze", "squeeze.dim", "squeeze.dims", "squeeze_", "squeeze_.dim", "squeeze_.dims")
    )
]
_UNSQUEEZE = _reshape_op("unsqueeze", "UnsqueezeBackward0")
_UNSQUEEZE_INPLACE = _reshape_op("unsqueeze_", "UnsqueezeBackward1")
_EXPAND = _view_op("expand", "ExpandBackward0")
_SELECT = _view_op("select", "SelectBackward0")
_SLICE = _view_op("slice", "SliceBackward0")
_ALIAS = _reshape_op("alias", "AliasBackward0")
_DIAGONAL = _view_op("diagonal", "DiagonalBackward0")
_VIEW_DTYPE = _view_op("view.dtype", "ViewBackward0")
_BY_LAST_OP = {"select": _SELECT, "slice": _SLICE, "unsqueeze": _UNSQUEEZE, None: _ALIAS}

_CLONE = register("clone", lambda x: jnp.array(x, copy=True), node="CloneBackward0", saves="none")


_UNBIND = register(
    "unbind", lambda x, *, dim: tuple(jnp.moveaxis(x, dim, 0)), node="UnbindBackward0", saves="none"
)

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


def _apply_view(op, input: Tensor, ops: tuple) -> Tensor:
    """Run the view `ops` of `input` as `op`: compiled per shape of view, placed at run time."""
    static, starts = shaped(ops)
    return apply(op, input, starts, ops=static)


def _view(op, input: Tensor, ops: tuple, layout: tuple | None = None) -> Tensor:
    """Apply a view op (recorded as `op`) and make the result a view of `input`."""
    return make_view(input, _apply_view(op, input, ops), ops, layout)


def _inplace_view(self: Tensor, op, ops: tuple) -> Tensor:
    """A view op applied to `self` in place (t_, squeeze_...): same memory, new geometry."""
    check_inplace(self)
    return rebind_view(self, _apply_view(op, self, ops), ops)


def rebind_view(self: Tensor, out: Tensor, ops: tuple, absolute: bool = False) -> Tensor:
    """`self` takes the value and geometry of `out`, its view `ops` (`absolute`: `ops` apply
    to the root value, and `self` keeps its memory as a view of it)."""
    rec = record_of(self) if absolute else self._storage
    if rec is not None:
        layout = layout_of(self)
        for item in ops:
            layout = layout_op(layout, item)
        spec = ops if absolute else rec.spec + ops
        new = Alias(rec.buffer, spec, rec.base, rec.creation, layout, 0)
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
def _view_shape(input: Tensor, shape: tuple, fn: str, name: str) -> tuple:
    return infer_shape(shape_args(shape, fn, name), input.numel())


def reshape(input, *shape):
    """The same elements in a new shape (one size may be -1): a view when the memory layout
    allows one (always for contiguous tensors), else a copy, as in PyTorch.

    Example::

        >>> torch.arange(6).reshape(2, 3)
        tensor([[0, 1, 2],
                [3, 4, 5]])
    """
    tensor_arg(input, "reshape")
    shape = _view_shape(input, shape, "reshape", "shape")
    ops = (("view", shape),)
    if input._storage is None:
        return _view(_VIEW, input, ops, plain_layout(shape))
    layout = layout_of(input)
    strides = compute_stride(layout[0], layout[1], shape)
    if strides is None:
        return _apply_view(_UNSAFE_VIEW, apply(_CLONE, input), ops)
    op = _VIEW if is_contiguous(layout) else _RESHAPE_ALIAS
    return _view(op, input, ops, (shape, strides, layout[2]))


def view(input, *shape, dtype=None):
    """A view with a new shape (one size may be -1); the memory layout must allow it (use
    reshape otherwise). `view(dtype)` reads the same bytes as another dtype."""
    if dtype is not None or (
        len(shape) == 1 and isinstance(shape[0], (_dtypes.dtype, type, np.dtype))
    ):
        return _view_dtype(input, _dtypes.as_dtype(shape[0] if dtype is None else dtype))
    tensor_arg(input, "view")
    shape = _view_shape(input, shape, "view", "size")
    if input._storage is None:
        layout = plain_layout(shape)
    else:
        old = layout_of(input)
        strides = compute_stride(old[0], old[1], shape)
        if strides is None:
            raise RuntimeError(_VIEW_STRIDE)
        layout = (shape, strides, old[2])
    return _view(_VIEW, input, (("view", shape),), layout)


def _view_dtype(input, dtype: _dtypes.dtype):
    """`input.view(dtype)`: a view over the same bytes, read as `dtype` (not differentiable:
    the result does not require grad, as in PyTorch)."""
    tensor_arg(input, "view")
    if dtype is input.dtype:
        return _view(_VIEW, input, (("view", tuple(input.shape)),), layout_of(input))
    shape, strides, offset = layout_of(input)
    old, new = input.element_size(), dtype.itemsize
    if old != new:
        names = f"{_type_name(input.dtype)} as {_type_name(dtype)} (different element sizes)"
        if input.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 to view {names}")
        if strides[-1] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 to view {names}, but got {strides[-1]}")
        if new > old:
            ratio = new // old
            for what, value in (("size(-1)", shape[-1]), ("storage_offset()", offset)):
                if value % ratio:
                    raise RuntimeError(
                        f"self.{what} must be divisible by {ratio} to view {names}, but got {value}"
                    )
            for d, stride in enumerate(strides[:-1]):
                if stride % ratio:
                    raise RuntimeError(
                        f"self.stride({d}) must be divisible by {ratio} to view {names}, "
                        f"but got {stride}"
                    )
    op = ("bitcast", np.dtype(input.dtype.jax), np.dtype(dtype.jax))
    source = input.detach()
    return _view(_VIEW_DTYPE, source, (op,), layout_op((shape, strides, offset), op))


def _type_name(dtype: _dtypes.dtype) -> str:
    """PyTorch's scalar type name in its messages: "Float" for torch.float32."""
    return _dtypes.LEGACY_TYPE_NAMES[dtype].removesuffix("Tensor")


def view_as(input, other):
    """`input.view(other.size())`."""
    return view(input, other.shape)


def reshape_as(input, other):
    """`input.reshape(other.size())`."""
    return reshape(input, other.shape)


def _permutation(ndim: int, dim0: int, dim1: int) -> tuple:
    if not ndim:  # a 0-d tensor's dims 0 and -1 name its one (absent) dim
        return ()
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


@numpy_names
def squeeze(input, dim=None):
    """A view without the dimensions of size 1 (all, or those among `dim`)."""
    tensor_arg(input, "squeeze")
    dims, variant = _squeeze_dims(input, dim)
    return _view(_SQUEEZE[variant], input, (("squeeze", dims),))


def squeeze_(self, dim=None):
    """Squeeze `self` in place."""
    dims, variant = _squeeze_dims(self, dim)
    return _inplace_view(self, _SQUEEZE[variant + 3], (("squeeze", dims),))


@numpy_names
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
    sizes = shape_args(sizes, "expand")
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


@numpy_names
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


@numpy_names
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


def _needs_concrete(fname: str, *tensors) -> None:
    """Data-dependent output shapes cannot be traced: say so instead of failing deep in JAX."""
    for t in tensors:
        if isinstance(t, Tensor) and modes.captures:
            modes.note_read(t)  # a compiled trace must not bake this value in
        if isinstance(t, Tensor) and is_tracer(t._value):
            raise _errors.DataDependentError(
                f"{fname}(): the output shape depends on the values of the input, so it needs "
                "concrete values and cannot run under a jax trace (jax.jit, jax.vmap, "
                "jax.grad). Compute it outside the traced function, or use a fixed-size "
                "alternative such as torch.where(mask, x, 0)."
            )


def _is_integral(d: _dtypes.dtype) -> bool:
    return not (d.is_floating_point or d.is_complex) and d is not _dtypes.bool


def _concrete_index(index: Tensor):
    """The index values as numpy, or None under a jax trace (bounds are then unchecked)."""
    value = index._value
    if is_tracer(value):
        return None
    return np.asarray(value)


# ----------------------------------------------------------------------------- cat / stack
def _cat(*xs, dim, dtype, keep):
    return jnp.concatenate([x.astype(dtype) for x, k in zip(xs, keep) if k], axis=dim)


_CAT = register("cat", _cat, node="CatBackward0", saves="none")


def _tensor_list(fname: str, tensors, name: str = "tensors") -> tuple:
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(
            f"{fname}(): argument '{name}' (position 1) must be tuple of Tensors, not "
            f"{type(tensors).__name__}"
        )
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(
                f"{fname}(): argument '{name}' (position 1) must be tuple of Tensors, but "
                f"found element of type {type(t).__name__}"
            )
    return tuple(tensors)


@takes_out
@numpy_names
def cat(tensors, dim: int = 0):
    """Concatenate tensors along an existing dim; dtypes promote as in PyTorch.

    1-D empty tensors (shape [0]) are skipped, as PyTorch does for backward compatibility.

    Example::

        >>> torch.cat([torch.zeros(1, 2), torch.ones(1, 2)]).shape
        torch.Size([2, 2])
    """
    tensors = _tensor_list("cat", tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    shapes = []  # (each tensor's shape read once: a front end every generated token runs)
    for i, t in enumerate(tensors):
        shape = t._stored.shape
        if not shape:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
        shapes.append(shape)
    keep = tuple([shape != (0,) for shape in shapes])  # (1-D empty tensors are skipped)
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = _dtypes.promote_types(dtype, t.dtype)
    if True not in keep:
        return apply(_CAT, *tensors, dim=0, dtype=dtype.jax, keep=(True,) * len(tensors))
    first = shapes[keep.index(True)]
    ndim = len(first)
    d = normalize_dim(dim, ndim)
    for i, shape in enumerate(shapes):
        if not keep[i]:
            continue
        if len(shape) != ndim:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {ndim} and {len(shape)}"
            )
        for axis in range(ndim):
            if axis != d and shape[axis] != first[axis]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size "
                    f"{first[axis]} but got size {shape[axis]} for tensor number {i} "
                    "in the list."
                )
    if _wide.is_wide(len(tensors)) and all(keep):
        return _wide.wide(_CAT, tensors, dim=d, dtype=dtype.jax, stack=False)
    return apply(_CAT, *tensors, dim=d, dtype=dtype.jax, keep=keep)


concat = concatenate = cat


def _stack(*xs, dim, dtype):
    return jnp.stack([x.astype(dtype) for x in xs], axis=dim)


_STACK = register("stack", _stack, node="StackBackward0", saves="none")


@takes_out
@numpy_names
def stack(tensors, dim: int = 0):
    """Stack equally shaped tensors along a new dim; dtypes promote as in PyTorch."""
    tensors = _tensor_list("stack", tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    first = tensors[0]
    for i, t in enumerate(tensors[1:], start=1):
        if t.shape != first.shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(first.shape)} at "
                f"entry 0 and {list(t.shape)} at entry {i}"
            )
    d = normalize_dim(dim, first.ndim + 1)
    dtype = first.dtype
    for t in tensors[1:]:
        dtype = _dtypes.promote_types(dtype, t.dtype)
    if _wide.is_wide(len(tensors)):
        return _wide.wide(_STACK, tensors, dim=d, dtype=dtype.jax, stack=True)
    return apply(_STACK, *tensors, dim=d, dtype=dtype.jax)


# ----------------------------------------------------------------------------- split / chunk
def _split(x, *, sizes, dim):
    out, start = [], 0
    for size in sizes:
        out.append(lax.slice_in_dim(x, start, start + size, axis=dim))
        start += size
    return tuple(out)


_SPLIT = register("split", _split, node="SplitBackward0", saves="none")
_SPLIT_WITH_SIZES = register(
    "split_with_sizes", _split, node="SplitWithSizesBackward0", saves="none"
)


def _split_views(op, input: Tensor, sizes: tuple, dim: int) -> tuple:
    """The pieces of `input` along `dim` as views of it: the outputs of one multi-output node,
    which (as in PyTorch) may not be modified in place while that would be recorded."""
    outs = apply(op, input, sizes=sizes, dim=dim)
    starts = itertools.accumulate(sizes, initial=0)
    return tuple(
        make_view(input, out, (("slice", dim, start, start + size, 1),), multi=True)
        for out, start, size in zip(outs, starts, sizes)
    )


def split(tensor, split_size_or_sections, dim: int = 0):
    """Split into pieces of `split_size` along `dim` (the last may be smaller), or into pieces
    of the listed sizes. Returns a tuple of views of `tensor`."""
    tensor_arg(tensor, "split", "tensor")
    d, sizes, listed = split_plan(tensor, split_size_or_sections, dim)
    return _split_views(_SPLIT_WITH_SIZES if listed else _SPLIT, tensor, sizes, d)


def split_plan(tensor: Tensor, split_size_or_sections, dim: int) -> tuple[int, tuple, bool]:
    """(dim, piece sizes, whether the sizes were listed) of a split, checked as PyTorch
    checks them."""
    if tensor.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = normalize_dim(dim, tensor.ndim)
    size = tensor.shape[d]
    if isinstance(split_size_or_sections, Tensor):
        split_size_or_sections = split_size_or_sections.tolist()
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step < 0:
            raise RuntimeError(
                f"split expects split_size be non-negative, but got split_size={step}"
            )
        if step == 0 and size != 0:
            raise RuntimeError(
                f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}"
            )
        count = max(1, math.ceil(size / step)) if step else 1
        return d, tuple(min(step, size - i * step) for i in range(count)), False
    sizes = tuple(int(s) for s in split_size_or_sections)
    if sum(sizes) != size or any(s < 0 for s in sizes):
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
            f"size at dimension {d}), but got split_sizes={list(sizes)}"
        )
    return d, sizes, True


@numpy_names
def chunk(input, chunks: int, dim: int = 0):
    """Split into `chunks` pieces of size ceil(size / chunks) (fewer when it divides unevenly)."""
    tensor_arg(input, "chunk")
    d, step = chunk_plan(input, chunks, dim)
    if step == 0:
        return _split_views(_SPLIT, input, (0,) * chunks, d)
    return split(input, step, d)


def chunk_plan(input: Tensor, chunks: int, dim: int) -> tuple[int, int]:
    """(dim, piece size) of a chunk, checked as PyTorch checks them."""
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    if input.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    d = normalize_dim(dim, input.ndim)
    return d, math.ceil(input.shape[d] / chunks)


def _clamped_slice(input: Tensor, dim: int, start: int, stop: int) -> Tensor:
    """`input[start:stop]` along `dim` as a view, bounds wrapped and clamped like a slice."""
    size = input.shape[dim]
    start = min(max(start + size if start < 0 else start, 0), size)
    stop = min(max(stop + size if stop < 0 else stop, start), size)
    return narrow(input, dim, start, stop - start)


def tensor_split(input, indices_or_sections, dim: int = 0):
    """Split into `sections` nearly equal pieces (the first `size % sections` one longer), or
    at the listed indices (slice semantics). Returns a tuple of views (SliceBackward0 each)."""
    tensor_arg(input, "tensor_split")
    if input.ndim == 0:
        raise RuntimeError(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
        )
    if isinstance(indices_or_sections, Tensor):
        if indices_or_sections.ndim > 1:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                f"one-dimensional tensor, but got a tensor with {indices_or_sections.ndim} dims"
            )
        if indices_or_sections.dtype is not _dtypes.int64:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                f"{scalar_type_name(indices_or_sections.dtype)}"
            )
        indices_or_sections = indices_or_sections.tolist()
    d = normalize_dim(dim, input.ndim)
    if isinstance(indices_or_sections, int):
        sections = indices_or_sections
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        small, extra = divmod(input.shape[d], sections)
        sizes = [small + 1] * extra + [small] * (sections - extra)
        bounds = list(itertools.accumulate(sizes, initial=0))
    else:
        bounds = [0, *(int(i) for i in indices_or_sections), input.shape[d]]
    return tuple(_clamped_slice(input, d, a, b) for a, b in itertools.pairwise(bounds))


# ----------------------------------------------------------------------------- flip / roll
_FLIP = register("flip", lambda x, *, dims: jnp.flip(x, dims), node="FlipBackward0", saves="none")


def flip(input, dims):
    """Reverse the order of elements along `dims` (an int or a tuple)."""
    tensor_arg(input, "flip")
    return apply(_FLIP, input, dims=unique_dims(dims, input.ndim) if input.ndim else ())


def _roll(x, *, shifts, dims):
    if dims is None:
        return jnp.roll(x.reshape(-1), shifts[0]).reshape(x.shape)
    return jnp.roll(x, shifts, dims)


_ROLL = register("roll", _roll, node="RollBackward0", saves="none")


def roll(input, shifts, dims=None):
    """Rotate elements along `dims` by `shifts` (with no dims, over the flattened tensor)."""
    tensor_arg(input, "roll")
    shifts = shape_args((shifts,), "roll", "shifts")
    if not shifts:
        raise RuntimeError("`shifts` required")
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return apply(_ROLL, input, shifts=shifts, dims=None)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(shifts) != len(dims):
        raise RuntimeError(
            f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}"
        )
    dims = tuple(normalize_dim(d, input.ndim) for d in dims)
    return apply(_ROLL, input, shifts=shifts, dims=dims)


# ----------------------------------------------------------------------------- reshaping
def flatten(input, start_dim: int = 0, end_dim: int = -1):
    """Merge dims start_dim..end_dim into one (a 0-d tensor becomes 1-D): a view where
    `reshape` gives one."""
    tensor_arg(input, "flatten")
    start = normalize_dim(start_dim, input.ndim)
    end = normalize_dim(end_dim, input.ndim)
    if input.ndim == 0:
        return reshape(input, 1)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return input
    shape = tuple(input.shape)
    merged = math.prod(shape[start : end + 1])
    return reshape(input, shape[:start] + (merged,) + shape[end + 1 :])


@numpy_names
def unflatten(input, dim: int, sizes):
    """Split dim `dim` into `sizes` (one of which may be -1): a view where `reshape` gives one."""
    tensor_arg(input, "unflatten")
    d = normalize_dim(dim, input.ndim)
    sizes = tuple(int(s) for s in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    size = input.shape[d]
    known = math.prod(s for s in sizes if s != -1)
    unknown = sizes.count(-1)
    if unknown > 1:
        raise RuntimeError("only one dimension can be inferred")
    if (unknown and (known == 0 or size % known)) or (not unknown and known != size):
        raise RuntimeError(
            f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {d} "
            f"({size}) in the input tensor"
        )
    if unknown:
        sizes = tuple(size // known if s == -1 else s for s in sizes)
    shape = tuple(input.shape)
    return reshape(input, shape[:d] + sizes + shape[d + 1 :])


def _repeat(x, *, repeats):
    x = x.reshape((1,) * (len(repeats) - x.ndim) + x.shape)
    return jnp.tile(x, repeats)


_REPEAT = register("repeat", _repeat, node="RepeatBackward0", saves="none")


def repeat(input, *sizes):
    """Tile the tensor `sizes[i]` times along each dim (extra leading sizes add dims)."""
    sizes = shape_args(sizes, "repeat", "repeats")
    if len(sizes) < input.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions "
            "of tensor"
        )
    if any(s < 0 for s in sizes):  # PyTorch reports the result's shape
        padded = (1,) * (len(sizes) - input.ndim) + tuple(input.shape)
        target = [n * r for n, r in zip(padded, sizes)]
        first = next(n for n in target if n < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {first}: {target}")
    return apply(_REPEAT, input, repeats=sizes)


def tile(input, dims):
    """Like `repeat`, but `dims` shorter than the tensor's rank is padded with ones in front."""
    tensor_arg(input, "tile")
    dims = shape_args((dims,), "tile", "dims")
    dims = (1,) * (input.ndim - len(dims)) + dims
    return repeat(input, dims)


def movedim(input, source, destination):
    """Move dims `source` to positions `destination` (ints or equally long tuples): a view."""
    tensor_arg(input, "movedim")
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(src)} dims) should "
            f"contain the same number of dims as destination ({list(dst)} dims)"
        )
    ndim = input.ndim
    src = tuple(normalize_dim(d, ndim) for d in src)
    dst = tuple(normalize_dim(d, ndim) for d in dst)
    if len(set(src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({list(source)})")
    if len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({list(destination)})")
    order = [d for d in range(ndim) if d not in src]
    perm = [None] * ndim
    for s, t in zip(src, dst):
        perm[t] = s
    rest = iter(order)
    return permute(input, tuple(p if p is not None else next(rest) for p in perm))


moveaxis = movedim


def swapaxes(input, axis0: int, axis1: int):
    """Swap two dims (`transpose`, a view)."""
    tensor_arg(input, "swapaxes")
    return transpose(input, axis0, axis1)


swapdims = swapaxes


# ------------------------------------------------------------- broadcast_to, ravel, flips and rot90
def broadcast_to(input, size):
    """`input.expand(size)`: a broadcast view."""
    tensor_arg(input, "broadcast_to")
    return expand(input, shape_args((size,), "broadcast_to"))


def broadcast_shapes(*shapes) -> Size:
    """The shape that all `shapes` (sizes or ints) broadcast to; PyTorch's error naming the
    first argument that does not fit the shape so far."""
    result: list[int] = []
    for index, shape in enumerate(shapes):
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        if len(shape) > len(result):
            result = [1] * (len(shape) - len(result)) + result
        for back in range(1, len(shape) + 1):
            size, current = shape[-back], result[-back]
            if current == 1:
                result[-back] = size
            elif size not in (1, current):
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {size} at -{back}! "
                    f"Mismatching argument at index {index} had {shape}; but expected shape "
                    f"should be broadcastable to {result}"
                )
    return Size(result)


def broadcast_tensors(*tensors) -> tuple:
    """The tensors expanded to their common broadcast shape (views); one that already has
    that shape is returned itself, as in PyTorch."""
    shape: tuple = ()
    for t in tensors:
        shape = _broadcast_two(shape, tuple(tensor_arg(t, "broadcast_tensors", "tensors").shape))
    return tuple(t if tuple(t.shape) == shape else expand(t, shape) for t in tensors)


def ravel(input):
    """The elements as a 1-D tensor (a view where possible)."""
    tensor_arg(input, "ravel")
    return reshape(input, -1)


def _flip_dim(input, fname: str, dim: int):
    """`input` reversed along `dim`, which it must have (fliplr, flipud)."""
    tensor_arg(input, fname)
    if input.ndim <= dim:
        raise RuntimeError(f"Input must be >= {dim + 1}-d.")
    return flip(input, (dim,))


def fliplr(input):
    """Reverse the columns (dim 1) of a tensor of at least 2 dims."""
    return _flip_dim(input, "fliplr", 1)


def flipud(input):
    """Reverse the rows (dim 0) of a tensor of at least 1 dim."""
    return _flip_dim(input, "flipud", 0)


_ROT90 = register(
    "rot90", lambda x, *, k, dims: jnp.rot90(x, k, dims), node="Rot90Backward0", saves="none"
)


def rot90(input, k: int = 1, dims=(0, 1)):
    """Rotate by 90 degrees `k` times in the plane of `dims`, from the first toward the second."""
    tensor_arg(input, "rot90")
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = (normalize_dim(d, input.ndim) for d in dims)
    if d0 == d1:
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}"
        )
    return apply(_ROT90, input, k=int(k) % 4, dims=(d0, d1))
