"""linear_cross_entropy: cross entropy of `linear(input, linear_weight, linear_bias)`.

PyTorch's chunked path (`options=LinearCrossEntropyOptions(...)`) computes the same loss in
batch chunks so the (N, C) logits never exist at once; here XLA computes the loss as one
program whatever `options` say (the options are checked and kept, as PyTorch's are, and the
configurations PyTorch's chunked path refuses warn as they do there).
"""

from __future__ import annotations

import math
import warnings

from ..._pure import dtypes as _dtypes
from .linear import linear
from .loss import cross_entropy

__all__ = ["linear_cross_entropy"]


def _check_shapes(input, linear_weight, linear_bias) -> tuple:
    """PyTorch's shape checks; (batch shape, classes, out_features)."""
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(
            f"expected linear_weight with dimensionality at least 2, got {linear_weight.dim()}"
        )
    batches, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError(
            "expected equal input and linear_weight last dimensions (in_features), "
            f"got {input.shape[-1]} and {linear_weight.shape[-1]}, respectively"
        )
    classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (classes, *out_features):
        raise RuntimeError(
            f"expected linear_bias shape {(classes, *out_features)}, got {tuple(linear_bias.shape)}"
        )
    if out_features and not batches:
        raise RuntimeError(
            f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} "
            f"requires batched input, (N, {in_features}), got unbatched input with shape "
            f"{tuple(input.shape)}"
        )
    return batches, classes, out_features


def _warn_unchunked(options, target, reduction, label_smoothing, out_features, linear_bias):
    """PyTorch's warning where its chunked path cannot take `options`."""
    if options is None:
        return
    if (
        out_features
        or reduction not in {"mean", "sum", "none"}
        or label_smoothing != 0.0
        or target.dtype is not _dtypes.int64
    ):
        bias_shape = tuple(linear_bias.shape) if linear_bias is not None else None
        warnings.warn(
            "linear_cross_entropy: ``options`` ignored; chunked path needs "
            "reduction in {'mean','sum','none'}, label_smoothing == 0, target.dtype"
            " == int64, out_features == (). Got "
            f"reduction={reduction!r}, label_smoothing={label_smoothing}, "
            f"target.dtype={target.dtype}, out_features={out_features}"
            f", tracing=False, linear_bias.shape={bias_shape}.",
            stacklevel=3,
        )


def linear_cross_entropy(
    input,
    linear_weight,
    target,
    *,
    linear_bias=None,
    weight=None,
    reduction: str = "mean",
    ignore_index: int | None = None,
    label_smoothing: float = 0.0,
    options=None,
):
    """The cross entropy between `linear(input, linear_weight, linear_bias)` and `target`
    (class indices, or probabilities shaped like the logits). `linear_weight` of shape
    (C, d_1, ..., d_K, in_features) gives a K-dimensional loss; `ignore_index` None means
    -100 for class indices and may not be given with probabilities.

    Example::

        >>> x, w = torch.ones(2, 3), torch.eye(4, 3)
        >>> F.linear_cross_entropy(x, w, torch.tensor([0, 3]))
        tensor(1.7143)
    """
    batches, classes, out_features = _check_shapes(input, linear_weight, linear_bias)
    logits_shape = (*batches, classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    _warn_unchunked(options, target, reduction, label_smoothing, out_features, linear_bias)
    if out_features:
        flat = math.prod(out_features, start=classes)
        linear_weight = linear_weight.reshape((flat, input.shape[-1]))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(flat)
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(
        logits,
        target,
        weight=weight,
        reduction=reduction,
        ignore_index=-100 if ignore_index is None else ignore_index,
        label_smoothing=label_smoothing,
    )
