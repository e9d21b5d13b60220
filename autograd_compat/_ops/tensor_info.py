"""What PyTorch code asks a tensor about itself, and the host-side utilities of a CPU tensor:
layout and the False backend predicates (is_sparse, is_meta...), is_nonzero/is_same_size/
is_set_to, the lazy conjugate/negative bits (always resolved here), pin_memory/share_memory_,
dim_order, apply_/map_ (a Python function run per element) and resize_/resize_as_. A tensor's
memory as bytes (data_ptr, storages) is `storage.py`'s.
"""

from __future__ import annotations

import builtins
import numbers

import jax
import jax.numpy as jnp
import numpy as np

from .._pure import dtypes as _dtypes
from .._pure import layouts as _layouts
from .._state.tensor import MetaTensor, Tensor
from .._tape import views as _views
from .._tape.args import check_inplace, commit_inplace, tensor_arg
from . import convert as _convert
from .out_arg import takes_out

__all__ = [
    "conj_physical",
    "conj_physical_",
    "is_conj",
    "is_neg",
    "is_nonzero",
    "is_same_size",
    "resize_as_",
    "resolve_conj",
    "resolve_neg",
]


def _false(self: Tensor) -> bool:
    """A backend or layout this library never makes (sparse, quantized, meta, MPS, ...)."""
    return False


def is_meta(self: Tensor) -> bool:
    """`Tensor.is_meta`: whether the tensor is on the meta device (a shape and dtype only)."""
    return isinstance(self, MetaTensor)


def layout(self: Tensor) -> _layouts.layout:
    """`Tensor.layout`: every tensor here is dense and strided."""
    return _layouts.strided


def is_nonzero(input) -> bool:
    """True when the single element of `input` is not zero (NaN counts as nonzero)."""
    tensor_arg(input, "is_nonzero")
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return builtins.bool(input.item() != 0)


def contains(self: Tensor, element) -> bool:
    """`element in tensor`: whether any entry equals `element` (a number or a tensor,
    broadcast), as PyTorch's, not Python's row by row iteration."""
    if isinstance(element, (Tensor, numbers.Number)):
        return bool(self.eq(element).any().item())
    raise RuntimeError(
        f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}."
    )


def is_same_size(input, other) -> bool:
    """True when both tensors have the same shape."""
    tensor_arg(input, "is_same_size")
    tensor_arg(other, "is_same_size", "other", 2)
    return tuple(input.shape) == tuple(other.shape)


def is_set_to(self: Tensor, tensor) -> bool:
    """True when both tensors see the same memory with the same sizes, strides and offset."""
    tensor_arg(tensor, "is_set_to", "tensor", 1)
    same = self is tensor or (
        self._storage is not None
        and tensor._storage is not None
        and self._storage.buffer is tensor._storage.buffer
    )
    return same and _views.layout_of(self) == _views.layout_of(tensor)


def is_conj(input) -> bool:
    """False: `conj()` computes the conjugate at once here (no lazy conjugate bit)."""
    tensor_arg(input, "is_conj")
    return False


def is_neg(input) -> bool:
    """False: there is no lazy negative bit here."""
    tensor_arg(input, "is_neg")
    return False


def resolve_conj(input):
    """`input` itself: its conjugate bit is never set."""
    tensor_arg(input, "resolve_conj")
    return input


def resolve_neg(input):
    """`input` itself: its negative bit is never set."""
    tensor_arg(input, "resolve_neg")
    return input


@takes_out
def conj_physical(input):
    """The complex conjugate, computed; `input` itself for real tensors (as in PyTorch)."""
    tensor_arg(input, "conj_physical")
    return _convert.conj(input)


def conj_physical_(input):
    """Conjugate in place; a no-op returning `input` for real tensors."""
    tensor_arg(input, "conj_physical_")
    if not input.dtype.is_complex:
        return input
    check_inplace(input)
    return commit_inplace(input, _convert.conj(input))


# ----------------------------------------------------------------------------- memory
def pin_memory(self: Tensor, device=None) -> Tensor:
    """PyTorch pins host memory for an accelerator; without one it raises, as PyTorch does.
    JAX manages host staging itself, so with an accelerator the tensor is returned as is."""
    if jax.default_backend() == "cpu":
        raise RuntimeError("Cannot access accelerator device when none is available.")
    return self


def is_pinned(self: Tensor, device=None) -> bool:
    """False: no tensor here lives in page-locked host memory."""
    return False


SHARE_MEMORY = (
    "share_memory_(): autograd_compat cannot share a tensor's memory with other processes: "
    "its values live in JAX buffers that each process holds privately, so in-place updates "
    "made by a child process (Hogwild training) would never reach this one. Tensors passed "
    "to torch.multiprocessing processes are copied; send results back through a Queue, or "
    "use threads, which do share tensors."
)


def share_memory_(self: Tensor) -> Tensor:
    """PyTorch moves the storage into shared memory; here that cannot be done, and a silent
    no-op would let a child process's in-place updates vanish: a clear error instead."""
    raise RuntimeError(SHARE_MEMORY)


def is_shared(self: Tensor) -> bool:
    """False: no tensor here lives in memory shared between processes."""
    return False


def dim_order(self: Tensor, *, ambiguity_check: bool = False) -> tuple:
    """The dimensions from outermost to innermost in memory, by PyTorch's insertion sort on
    strides (`compute_elementwise_output_logical_to_physical_perm`). `ambiguity_check=True`
    raises when size-1 dimensions or equal strides make more than one order valid."""
    shape, strides, _ = _views.layout_of(self)
    ndim = len(shape)
    if ambiguity_check and (
        builtins.any(a == b for a, b in zip(strides, strides[1:]))
        or builtins.any(s == 1 for s in shape)
    ):
        raise RuntimeError(
            "The tensor does not have unique dim order, or cannot map to exact one of the given "
            "memory formats."
        )
    if ndim <= 1:
        return tuple(range(ndim))
    plain = _views.is_contiguous((shape, strides, 0))
    channels_last = _channels_last_contiguous(shape, strides)
    if plain and not channels_last:
        return tuple(range(ndim))
    if channels_last and not plain:
        return (0, *range(2, ndim), 1)

    def ge(a: int, b: int) -> bool:
        return b == 0 or (a != 0 and (a >= b or a % b == 0))

    def should_swap(a: int, b: int) -> int:
        if strides[a] == 0 or strides[b] == 0:
            return 0
        if strides[a] == strides[b]:
            return 0 if ge(shape[b], shape[a]) else 1
        return -1 if ge(strides[b], strides[a]) else 1

    perm = list(reversed(range(ndim)))
    for i in range(1, ndim):
        dim1 = i
        for dim0 in reversed(range(i)):
            comparison = should_swap(perm[dim0], perm[dim1])
            if comparison > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif comparison < 0:
                break
    if ambiguity_check and builtins.any(should_swap(a, b) != -1 for a, b in zip(perm, perm[1:])):
        raise RuntimeError("The tensor does not have unique dim order.")
    return tuple(reversed(perm))


def _channels_last_contiguous(shape: tuple, strides: tuple) -> bool:
    """PyTorch's is_channels_last_contiguous (4-d tensors; size-1 dims are skipped)."""
    if len(shape) != 4:
        return False
    expected = 1
    for d in (1, 3, 2, 0):
        if shape[d] == 1:
            continue
        if strides[d] != expected:
            return False
        expected *= shape[d]
    return True


# ----------------------------------------------------------------------------- host functions
def _host_values(self: Tensor, name: str) -> np.ndarray:
    if self.requires_grad:
        raise RuntimeError(
            f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() "
            "instead."
        )
    return np.asarray(self._value)


def _write_host(self: Tensor, values) -> Tensor:
    """Write host `values` (cast to self's dtype) into self in place."""
    check_inplace(self)
    result = np.asarray(values).astype(self.dtype.jax).reshape(tuple(self.shape))
    self._set_value(jnp.asarray(result))
    self._bump_version()
    return self


def _python_scalar(value, d: _dtypes.dtype):
    return value.item() if d is not _dtypes.bfloat16 else float(value)


def apply_(self: Tensor, callable) -> Tensor:
    """Replace every element `v` by `callable(v)` (a Python function on Python numbers), in
    place. Runs on the host, element by element: slow, as in PyTorch (CPU only there)."""
    values = _host_values(self, "apply_")
    d = self.dtype
    return _write_host(self, [callable(_python_scalar(v, d)) for v in values.reshape(-1)])


def map_(self: Tensor, tensor, callable) -> Tensor:
    """Replace every element `a` by `callable(a, b)`, `b` the matching element of `tensor`
    (broadcast to self's shape and of self's dtype), in place, on the host."""
    values = _host_values(self, "map_")
    tensor_arg(tensor, "map_", "other", 1)
    if tensor.dtype is not self.dtype:
        names = _dtypes.LEGACY_TYPE_NAMES
        raise TypeError(
            f"map_: expected torch.{names[self.dtype]} for 'other' (got "
            f"torch.{names[tensor.dtype]})"
        )
    others = np.asarray(tensor.expand(tuple(self.shape))._value).reshape(-1)
    d = self.dtype
    return _write_host(
        self,
        [
            callable(_python_scalar(a, d), _python_scalar(b, d))
            for a, b in zip(values.reshape(-1), others)
        ],
    )


def resize_(self: Tensor, *sizes, memory_format=None) -> Tensor:
    """Give self the shape `sizes`, keeping its first elements in row-major order; new
    elements are zeros (PyTorch leaves them uninitialized)."""
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    shape = tuple(int(s) for s in sizes)
    if builtins.any(s < 0 for s in shape):
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {min(shape)}: {list(shape)}"
        )
    if shape == tuple(self.shape):
        return self
    if self._storage is not None and len(self._storage.members) > 1:
        raise RuntimeError(
            "resize_() of a tensor whose memory other tensors (views, detach(), .data) share is "
            "not supported here: resize a clone() instead."
        )
    check_inplace(self)
    flat = jnp.ravel(self._value)
    count = int(np.prod(shape, dtype=np.int64))
    if count > flat.size:
        flat = jnp.concatenate([flat, jnp.zeros(count - flat.size, flat.dtype)])
    self._storage = None  # its memory is its own again, with the new shape
    self._set_value(jnp.reshape(flat[:count], shape))
    self._bump_version()
    return self


def resize_as_(input, the_template, *, memory_format=None):
    """`resize_` to the shape of `the_template`."""
    tensor_arg(input, "resize_as_")
    tensor_arg(the_template, "resize_as_", "the_template", 2)
    return resize_(input, tuple(the_template.shape))
