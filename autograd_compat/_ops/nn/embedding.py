"""Embedding lookup, bags of embeddings (sum, mean, max) and one_hot."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..._pure import dtypes as _dtypes
from ..._pure.device import host_to_device
from ..._state.tensor import MetaTensor, Tensor, peeked_value
from ..._tape.args import is_tracer, scalar_type_name
from ..._tape.record import apply
from ..shape import _needs_concrete
from ._common import _tensor, register

__all__ = ["embedding", "embedding_bag", "one_hot"]


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
    if input.numel() and not isinstance(input, MetaTensor) and not is_tracer(input._stored):
        values = np.asarray(peeked_value(input))
        if values.min() < 0 or values.max() >= rows:
            raise IndexError("index out of range in self")
    return apply(_EMBEDDING, weight, input, padding_idx=padding_idx)


def _embedding_bag_fn(weight, indices, bags, *per_sample_weights, mode, num_bags, padding_idx):
    """Reduce the rows of `weight` at `indices` per bag (`bags[j]` is index j's bag; an id of
    `num_bags` or more, or a padding index, belongs to no bag). Empty bags are zero."""
    rows = jnp.take(weight, indices, axis=0)
    valid = bags < num_bags
    if padding_idx is not None:
        valid = valid & (indices != padding_idx)
    bags = jnp.where(valid, bags, num_bags)
    counts = jax.ops.segment_sum(valid.astype(rows.dtype), bags, num_bags + 1)[:num_bags]
    if mode == "max":
        return _bag_max(rows, bags, valid, counts, num_bags)
    if per_sample_weights:
        rows = rows * per_sample_weights[0][:, None]
    rows = jnp.where(valid[:, None], rows, jnp.zeros_like(rows))
    out = jax.ops.segment_sum(rows, bags, num_bags + 1)[:num_bags]
    if mode == "mean":
        out = out / jnp.maximum(counts, 1)[:, None]
    return out


def _bag_max(rows, bags, valid, counts, num_bags: int):
    """Per bag and column, the row PyTorch's kernel keeps: the bag's first, replaced by each
    later one that is strictly greater (so the first of equal maxima, and a NaN only where it
    comes first). The value is read at that row, so the gradient goes to it alone."""
    n = rows.shape[0]
    position = jnp.arange(n)
    nan = jnp.isnan(rows)
    numbers = jnp.where(nan | ~valid[:, None], -jnp.inf, rows)
    top = jax.ops.segment_max(numbers, bags, num_bags + 1)
    at_top = (numbers == top[bags]) & ~nan & valid[:, None]
    # (an empty bag's segment_min is the int maximum: n, past the last row, stands for none)
    first_top = jax.ops.segment_min(jnp.where(at_top, position[:, None], n), bags, num_bags + 1)
    first = jax.ops.segment_min(jnp.where(valid, position, n), bags, num_bags + 1)
    first = jnp.minimum(first, n)
    nan_rows = jnp.concatenate([nan, jnp.zeros((1, rows.shape[1]), bool)])
    choice = jnp.where(nan_rows[first], first[:, None], jnp.minimum(first_top, n))[:num_bags]
    padded = jnp.concatenate([rows, jnp.zeros((1, rows.shape[1]), rows.dtype)])
    out = jnp.take_along_axis(padded, choice, axis=0)
    return jnp.where(counts[:, None] > 0, out, jnp.zeros_like(out))


_EMBEDDING_BAG = register("embedding_bag", _embedding_bag_fn, node="EmbeddingBagBackward0")


def _type_text(value) -> str:
    """`str(type(value))` as PyTorch prints it (a Tensor is `torch.Tensor`)."""
    return "<class 'torch.Tensor'>" if isinstance(value, Tensor) else str(type(value))


def _bag_ids(offsets: np.ndarray, count: int, include_last_offset: bool) -> tuple:
    """Each index's bag (from the bags' start offsets) and the number of bags."""
    num_bags = len(offsets) - 1 if include_last_offset else len(offsets)
    bags = np.searchsorted(offsets, np.arange(count), side="right") - 1
    return np.asarray(bags, np.int64), num_bags


def _check_bag_offsets(offsets: np.ndarray, count: int) -> None:
    if offsets.size and offsets[0] != 0:
        raise RuntimeError(
            "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
            f"from position 0. However, got {offsets[0]}\n[ torch.LongTensor{{}} ]"
        )
    if offsets.size and offsets[-1] > count:
        raise RuntimeError(
            f"offsets[-1] can not be greater than input's length {count} but got offsets[-1] "
            f"of {offsets[-1]}"
        )


def embedding_bag(
    input,
    weight,
    offsets=None,
    max_norm=None,
    norm_type: float = 2,
    scale_grad_by_freq: bool = False,
    mode: str = "mean",
    sparse: bool = False,
    per_sample_weights=None,
    include_last_offset: bool = False,
    padding_idx=None,
):
    """Sums, means or maxima of bags of embeddings, without building the per-index rows.

    A 2-D `input` is a batch of bags of equal size; a 1-D one is cut into bags at `offsets`.
    `per_sample_weights` scales each row (mode="sum" only); `padding_idx` rows are left out
    of their bag (and of its mean's count).

    Example::

        >>> w = torch.arange(6.0).reshape(3, 2)
        >>> F.embedding_bag(torch.tensor([0, 2, 1]), w, torch.tensor([0, 2]), mode="sum")
        tensor([[4., 6.],
                [2., 3.]])
    """
    _tensor(input, "embedding_bag")
    _tensor(weight, "embedding_bag", "weight", 2)
    if per_sample_weights is not None and input.shape != per_sample_weights.shape:
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, "
            f"then it must have the same shape as the input ({input.shape})"
        )
    if weight.dim() != 2:
        raise ValueError(
            f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}"
        )
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a "
                "mini-batch of fixed length sequences. However, found offsets of type "
                f"{_type_text(offsets)}"
            )
        starts = np.arange(0, input.numel(), max(input.shape[1], 1), dtype=np.int64)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        _needs_concrete("embedding_bag", offsets)
        starts = np.asarray(offsets._value, dtype=np.int64)
    else:
        raise ValueError(
            f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}"
        )
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError(
            "embedding_bag(): max_norm, scale_grad_by_freq and sparse are not yet supported by "
            "autograd_compat"
        )
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
            "on GitHub."
        )
    if input.dtype.is_floating_point or input.dtype.is_complex or input.dtype is _dtypes.bool:
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got torch.{scalar_type_name(input.dtype)}Tensor instead "
            "(while checking arguments for embedding_bag)"
        )
    count = input.numel()
    _check_bag_offsets(starts, count)
    rows = weight.shape[0]
    if not is_tracer(input._value) and count:
        values = np.asarray(input._value)
        bad = np.flatnonzero((values < 0) | (values >= rows))
        if bad.size:
            raise RuntimeError(
                f"Index {bad[0]} of input takes value {values[bad[0]]} which is not in the valid "
                f"range [0, {rows})"
            )
    if padding_idx is not None and padding_idx < 0:
        padding_idx += rows
    bags, num_bags = _bag_ids(starts, count, include_last_offset)
    extra = [] if per_sample_weights is None else [per_sample_weights]
    return apply(
        _EMBEDDING_BAG,
        weight,
        input,
        Tensor._wrap(host_to_device(bags)),
        *extra,
        mode=mode,
        num_bags=num_bags,
        padding_idx=padding_idx,
    )


def _one_hot_fn(x, *, num_classes):
    return jax.nn.one_hot(x, num_classes, dtype=jnp.int64)


_ONE_HOT = register("one_hot", _one_hot_fn, node="OneHotBackward0", differentiable=False)


def one_hot(tensor, num_classes: int = -1):
    """An int64 one-hot encoding with a trailing class dimension."""
    _tensor(tensor, "one_hot", "self")
    if tensor.dtype is not _dtypes.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    values = None if is_tracer(tensor._value) else np.asarray(tensor._value)
    if num_classes == -1:  # the class count comes from the values
        _needs_concrete("one_hot (with num_classes=-1)", tensor)
        if values is None or values.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(values.max()) + 1
    if values is not None and values.size:  # checked where the values are known
        if values.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if values.max() >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    return apply(_ONE_HOT, tensor, num_classes=int(num_classes))
