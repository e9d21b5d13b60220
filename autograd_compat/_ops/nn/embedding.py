"""Embedding lookup and one_hot."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..._pure import dtypes as _dtypes
from ..._state.modes import modes
from ..._tape.args import scalar_type_name
from ..._tape.record import apply
from ._common import _tensor, register

__all__ = ["embedding", "one_hot"]


def _embedding_fn(weight, indices, *, padding_idx):
    out = jnp.take(weight, indices, axis=0)
    if padding_idx is not None:
        # No gradient flows to the padding row, as in PyTorch.
        mask = (indices == padding_idx)[..., None]
        out = jnp.where(mask, lax.stop_gradient(out), out)
    return out


_EMBEDDING = register("embedding", _embedding_fn, node="EmbeddingBackward0")


def embedding(
    input,
    weight,
    padding_idx=None,
    max_norm=None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
):
    """Rows of `weight` for the integer indices in `input`."""
    _tensor(input, "embedding")
    _tensor(weight, "embedding", "weight", 2)
    if input.dtype.is_floating_point or input.dtype.is_complex or input.dtype is _dtypes.bool:
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got torch.{scalar_type_name(input.dtype)}Tensor instead "
            "(while checking arguments for embedding)"
        )
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError(
            "embedding(): max_norm, scale_grad_by_freq and sparse are not yet supported by "
            "autograd_compat"
        )
    rows = weight.shape[0]
    if padding_idx is not None:
        if padding_idx < 0:
            padding_idx += rows
    if not isinstance(input._value, jax.core.Tracer) and input.numel():
        values = np.asarray(input._value)
        if values.min() < 0 or values.max() >= rows:
            raise IndexError("index out of range in self")
    return apply(_EMBEDDING, weight, input, padding_idx=padding_idx)


def _one_hot_fn(x, *, num_classes):
    return jax.nn.one_hot(x, num_classes, dtype=jnp.int64)


_ONE_HOT = register("one_hot", _one_hot_fn, node="OneHotBackward0", differentiable=False)


def one_hot(tensor, num_classes: int = -1):
    """An int64 one-hot encoding with a trailing class dimension."""
    _tensor(tensor, "one_hot", "self")
    if tensor.dtype is not _dtypes.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if modes.captures:  # the class count comes from the values: a compiled trace must see them
        modes.note_read(tensor)
    values = np.asarray(tensor._value)
    if values.size and values.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(values.max()) + 1 if values.size else 0
    elif values.size and values.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return apply(_ONE_HOT, tensor, num_classes=int(num_classes))
