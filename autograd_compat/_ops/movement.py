"""Movement ops: cat/stack, split/chunk/tensor_split, flip/roll, gather/scatter,
index_select/index_add/index_fill/index_copy, masked_fill/masked_scatter/masked_select,
nonzero, take, flatten/unflatten, repeat/tile, movedim/swapaxes, one_hot, constant pad, and
exponential_.

split, chunk and tensor_split return views of their input, and flatten, unflatten, movedim
and swapaxes do where PyTorch's do (they are built on shape.py's view ops), so an in-place
change through the result reaches the input and its gradient.

Index bounds are checked eagerly when the index is concrete (PyTorch raises for them; JAX
would clamp or fill silently); under a jax trace those checks are skipped. Ops whose output
shape depends on the values (nonzero, masked_select, one_hot without num_classes) need
concrete values: under a jax trace they raise a clear error.
"""

from __future__ import annotations

import functools
import itertools
import math
import warnings

import jax.numpy as jnp
import numpy as np
from jax import lax

from .._pure import dtypes as _dtypes
from .._pure import errors as _errors
from .._pure.op import constant, register
from .._pure.shapes import broadcast_shapes, normalize_dim, shape_args
from .._state import random as _random
from .._state.modes import modes
from .._state.tensor import Tensor
from .._tape.args import is_tracer, scalar_type_name, tensor_arg
from .._tape.record import apply
from .._tape.views import make_view
from . import factories as _factories
from .pointwise import _no_derivative
from .shape import narrow, permute, reshape, transpose

__all__ = [
    "cat",
    "chunk",
    "concat",
    "concatenate",
    "flatten",
    "flip",
    "gather",
    "index_add",
    "index_copy",
    "index_fill",
    "index_select",
    "masked_fill",
    "masked_scatter",
    "masked_select",
    "movedim",
    "moveaxis",
    "nonzero",
    "roll",
    "scatter",
    "scatter_add",
    "split",
    "stack",
    "swapaxes",
    "swapdims",
    "take",
    "tensor_split",
    "tile",
    "unflatten",
]


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


def _ctype(d: _dtypes.dtype) -> str:
    """The C++ type name PyTorch prints in some dtype checks."""
    return {
        _dtypes.float32: "float",
        _dtypes.float64: "double",
        _dtypes.float16: "c10::Half",
        _dtypes.bfloat16: "c10::BFloat16",
        _dtypes.uint8: "unsigned char",
        _dtypes.int8: "signed char",
        _dtypes.int16: "short int",
        _dtypes.int32: "int",
        _dtypes.int64: "long int",
        _dtypes.complex64: "c10::complex<float>",
        _dtypes.complex128: "c10::complex<double>",
        _dtypes.bool: "bool",
    }[d]


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


def cat(tensors, dim: int = 0, *, out=None):
    """Concatenate tensors along an existing dim; dtypes promote as in PyTorch.

    1-D empty tensors (shape [0]) are skipped, as PyTorch does for backward compatibility.

    Example::

        >>> torch.cat([torch.zeros(1, 2), torch.ones(1, 2)]).shape
        torch.Size([2, 2])
    """
    tensors = _tensor_list("cat", tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    keep = tuple(not (t.ndim == 1 and t.shape[0] == 0) for t in tensors)
    kept = [t for t, k in zip(tensors, keep) if k]
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = _dtypes.promote_types(dtype, t.dtype)
    if not kept:
        return apply(_CAT, *tensors, dim=0, dtype=dtype.jax, keep=(True,) * len(tensors))
    first = kept[0]
    d = normalize_dim(dim, first.ndim)
    for i, t in enumerate(tensors):
        if not keep[i]:
            continue
        if t.ndim != first.ndim:
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {first.ndim} and {t.ndim}"
            )
        for axis in range(first.ndim):
            if axis != d and t.shape[axis] != first.shape[axis]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size "
                    f"{first.shape[axis]} but got size {t.shape[axis]} for tensor number {i} "
                    "in the list."
                )
    return apply(_CAT, *tensors, dim=d, dtype=dtype.jax, keep=keep)


concat = concatenate = cat


def _stack(*xs, dim, dtype):
    return jnp.stack([x.astype(dtype) for x in xs], axis=dim)


_STACK = register("stack", _stack, node="StackBackward0", saves="none")


def stack(tensors, dim: int = 0, *, out=None):
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
        sizes = tuple(min(step, size - i * step) for i in range(count))
        return _split_views(_SPLIT, tensor, sizes, d)
    sizes = tuple(int(s) for s in split_size_or_sections)
    if sum(sizes) != size or any(s < 0 for s in sizes):
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
            f"size at dimension {d}), but got split_sizes={list(sizes)}"
        )
    return _split_views(_SPLIT_WITH_SIZES, tensor, sizes, d)


def chunk(input, chunks: int, dim: int = 0):
    """Split into `chunks` pieces of size ceil(size / chunks) (fewer when it divides unevenly)."""
    tensor_arg(input, "chunk")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    if input.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    d = normalize_dim(dim, input.ndim)
    size = input.shape[d]
    step = math.ceil(size / chunks)
    if step == 0:
        return _split_views(_SPLIT, input, (0,) * chunks, d)
    return split(input, step, d)


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
def _unique_dims(dims, ndim: int) -> tuple:
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    out = []
    for dim in dims:
        d = normalize_dim(dim, ndim)
        if d in out:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        out.append(d)
    return tuple(out)


_FLIP = register("flip", lambda x, *, dims: jnp.flip(x, dims), node="FlipBackward0", saves="none")


def flip(input, dims):
    """Reverse the order of elements along `dims` (an int or a tuple)."""
    tensor_arg(input, "flip")
    return apply(_FLIP, input, dims=_unique_dims(dims, input.ndim) if input.ndim else ())


def _roll(x, *, shifts, dims):
    if dims is None:
        return jnp.roll(x.reshape(-1), shifts[0]).reshape(x.shape)
    return jnp.roll(x, shifts, dims)


_ROLL = register("roll", _roll, node="RollBackward0", saves="none")


def roll(input, shifts, dims=None):
    """Rotate elements along `dims` by `shifts` (with no dims, over the flattened tensor)."""
    tensor_arg(input, "roll")
    shifts = (shifts,) if isinstance(shifts, int) else tuple(int(s) for s in shifts)
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


def _check_bounds(values, size: int, dim: int, allow_negative: bool = False, error=RuntimeError):
    if values is None or values.size == 0:
        return
    low = -size if allow_negative else 0
    bad = values[(values < low) | (values >= size)]
    if bad.size:
        raise error(
            f"index {int(bad.flat[0])} is out of bounds for dimension {dim} with size {size}"
        )


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
    _check_bounds(_concrete_index(index), in_shape[d], d)
    return d


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
        src = constant(src, input.dtype.jax)
        op = _SCATTER_VALUE if reduce is None else _SCATTER_REDUCE
    return apply(op, input, index, src, dim=d, mode=reduce or "set")


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


def index_select(input, dim: int, index):
    """The slices of `input` at the positions `index` (a 1-D integer tensor) along `dim`."""
    tensor_arg(input, "index_select")
    index = _vector_index("index_select", index)
    d = normalize_dim(dim, input.ndim)
    size = input.shape[d] if input.ndim else 1
    values = _concrete_index(index)
    if values is not None and values.size:
        bad = values[(values < 0) | (values >= size)]
        if bad.size:
            raise RuntimeError(
                f"INDICES element is out of DATA bounds, id={int(bad.flat[0])} axis_dim={size}"
            )
    return apply(_INDEX_SELECT, input, index, dim=d)


def _index_add(x, index, source, alpha, *, dim):
    if x.ndim == 0:
        return x + alpha * source.astype(x.dtype) * index.size
    where = (slice(None),) * dim + (index.reshape(-1),)
    return x.at[where].add(alpha * source.astype(x.dtype))


_INDEX_ADD = register(
    "index_add", _index_add, node="IndexAddBackward0", shown_inputs=(0, 2), saves="others"
)


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
    if source.dtype is not input.dtype:
        raise RuntimeError(
            f"index_add_(): self ({scalar_type_name(input.dtype)}) and source "
            f"({scalar_type_name(source.dtype)}) must have the same scalar type"
        )
    size = input.shape[d] if input.ndim else 1
    values = _concrete_index(index)
    if values is not None and values.size:
        bad = values[(values < 0) | (values >= size)]
        if bad.size:
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
    _check_bounds(_concrete_index(index), size, d, allow_negative=True, error=IndexError)
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(
                "index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.ndim} dimension(s)."
            )
        return apply(_INDEX_FILL_TENSOR, input, index, value, dim=d)
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
    if source.dtype is not input.dtype:
        raise RuntimeError(
            "index_copy_(): self and source expected to have the same dtype, but got (self) "
            f"{scalar_type_name(input.dtype)} and (source) {scalar_type_name(source.dtype)}"
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
    values = _concrete_index(index)
    size = input.shape[d] if input.ndim else 1
    if values is not None and values.size:
        bad = values[(values < 0) | (values >= size)]
        if bad.size:
            raise IndexError(
                f"index_copy_(): index {int(bad.flat[0])} is out of bounds for dimension {d} "
                f"with size {size}"
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
        value = int(value) if input.dtype is not _dtypes.bool else bool(value)
    return apply(_MASKED_FILL, input, mask, constant(value, input.dtype.jax))


def _masked_select(x, positions, *, shape):
    return jnp.broadcast_to(x, shape).reshape(-1)[positions]


_MASKED_SELECT = register(
    "masked_select", _masked_select, node="MaskedSelectBackward0", shown_inputs=(0,), saves="others"
)


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
    if source.dtype is not input.dtype:
        raise RuntimeError(
            "masked_scatter: expected self and source to have same dtypes but got"
            f"{scalar_type_name(input.dtype)} and {scalar_type_name(source.dtype)}"
        )
    _needs_concrete("masked_scatter", mask)
    shape = broadcast_shapes(tuple(mask.shape), tuple(input.shape))
    flat = np.broadcast_to(np.asarray(mask._value), shape).reshape(-1)
    positions = np.flatnonzero(flat).astype(np.int64)
    if positions.size > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return apply(_MASKED_SCATTER, input, source, jnp.asarray(positions), shape=tuple(shape))


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


_TAKE = register(
    "take",
    lambda x, index: x.reshape(-1)[index],
    node="TakeBackward0",
    shown_inputs=(0,),
    saves="others",
)


def take(input, index):
    """The elements of the flattened `input` at `index` (negative indices count from the end);
    the result has the shape of `index`."""
    tensor_arg(input, "take")
    tensor_arg(index, "take", "index", 2)
    if index.dtype is not _dtypes.int64:
        raise RuntimeError(
            f"take(): Expected a long tensor for index, but got {scalar_type_name(index.dtype)}"
        )
    n = input.numel()
    values = _concrete_index(index)
    if values is not None and values.size:
        bad = values[(values < -n) | (values >= n)]
        if bad.size:
            raise IndexError(
                f"out of range: tried to access index {int(bad.flat[0])} on a tensor of {n} "
                "elements."
            )
    return apply(_TAKE, input, index)


# ----------------------------------------------------------------------------- reshaping
def flatten(input, start_dim: int = 0, end_dim: int = -1):
    """Merge dims start_dim..end_dim into one (a 0-d tensor becomes 1-D): a view where
    `reshape` gives one."""
    tensor_arg(input, "flatten")
    if input.ndim == 0:
        return reshape(input, 1)
    start = normalize_dim(start_dim, input.ndim)
    end = normalize_dim(end_dim, input.ndim)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return input
    shape = tuple(input.shape)
    merged = math.prod(shape[start : end + 1])
    return reshape(input, shape[:start] + (merged,) + shape[end + 1 :])


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
    sizes = shape_args(sizes)
    if len(sizes) < input.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions "
            "of tensor"
        )
    if any(s < 0 for s in sizes):
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {min(sizes)}: {list(sizes)}"
        )
    return apply(_REPEAT, input, repeats=sizes)


def tile(input, dims):
    """Like `repeat`, but `dims` shorter than the tensor's rank is padded with ones in front."""
    tensor_arg(input, "tile")
    dims = (dims,) if isinstance(dims, int) else tuple(int(d) for d in dims)
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


# ----------------------------------------------------------------------------- one_hot, pad
_ONE_HOT = register(
    "_ops.movement.one_hot",
    lambda x, *, num_classes: (x[..., None] == jnp.arange(num_classes)).astype(jnp.int64),
    node="OneHotBackward",
    differentiable=False,
)


def one_hot(tensor, num_classes: int = -1):
    """int64 one-hot encoding of an int64 tensor of class indices, with a new last dim of size
    `num_classes` (by default max + 1, which needs concrete values: not under a jax trace).

    Example::

        >>> torch.nn.functional.one_hot(torch.tensor([0, 2]))
        tensor([[1, 0, 0],
                [0, 0, 1]])
    """
    tensor_arg(tensor, "one_hot", "tensor")
    if tensor.dtype is not _dtypes.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    values = _concrete_index(tensor)
    if num_classes == -1:
        _needs_concrete("one_hot (with num_classes=-1)", tensor)
        if values.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(values.max()) + 1
    if values is not None and values.size:
        if values.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if values.max() >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    return apply(_ONE_HOT, tensor, num_classes=int(num_classes))


def _constant_pad(x, value, *, config):
    return lax.pad(x, value.astype(x.dtype), config)


_PAD = register("_ops.movement.pad", _constant_pad, node="ConstantPadNdBackward0", saves="none")


def pad(input, pad, mode: str = "constant", value=None):
    """Pad (or, with negative amounts, crop) the last dims: `pad` lists (left, right) amounts
    starting from the last dim. Only mode="constant" here.

    Example::

        >>> torch.nn.functional.pad(torch.ones(1, 2), (1, 1), value=0.0)
        tensor([[0., 1., 1., 0.]])
    """
    tensor_arg(input, "pad")
    if mode != "constant":
        raise NotImplementedError(
            f"pad(mode={mode!r}) is not supported here; only mode='constant' is"
        )
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * input.ndim:
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but "
            f"got padding length {len(pad)} and input of dimension {input.ndim}"
        )
    config = [(0, 0, 0)] * input.ndim
    for i in range(len(pad) // 2):
        dim = input.ndim - 1 - i
        low, high = pad[2 * i], pad[2 * i + 1]
        if input.shape[dim] + low + high < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        config[dim] = (low, high, 0)
    if value is None:
        value = 0
    if isinstance(value, Tensor):
        value = value.item()
    if _is_integral(input.dtype):
        value = int(value)
    return apply(_PAD, input, constant(value, input.dtype.jax), config=tuple(config))


def exponential_(self: Tensor, lambd: float = 1.0, *, generator=None) -> Tensor:
    """Fill with samples from the exponential distribution of rate `lambd` in place."""
    if not self.dtype.is_floating_point:
        raise RuntimeError(
            "Exponential distribution is a continuous probability distribution. dtype must be a "
            f"floating point but you specified {scalar_type_name(self.dtype)}"
        )
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    dtype = self._value.dtype
    uniform = _factories._uniform(_random.key(generator), tuple(self.shape), dtype)
    sample = -jnp.log1p(-uniform) / jnp.asarray(lambd, dtype)
    return _factories._fill_random(self, "ExponentialBackward0", sample)
