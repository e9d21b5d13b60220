"""Margin and embedding losses (ranking, hinge, cosine, soft margin, multi-class and
multi-label margins, triplets), each one fused op per reduction, named after the node
PyTorch's composite ends in."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax

from ..._pure import dtypes as _dtypes
from ..._pure.op import scalar_input
from ..._state import modes
from ..._state.tensor import Tensor
from ..._tape.args import scalar_type_name
from ..._tape.record import apply
from ..comparison import clamp_min, minimum
from ..reduce import mean, sum
from ._common import _same_dtype, register
from .distance import _p_args, _pairwise_fn, pairwise_distance
from .loss import _check_reduction, _check_tensors, _legacy_reduction, _reduce, host_ints

__all__ = [
    "cosine_embedding_loss",
    "hinge_embedding_loss",
    "margin_ranking_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "multilabel_soft_margin_loss",
    "soft_margin_loss",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
]


def by_reduction(op_id: str, fn, none_node: str) -> dict:
    """One op of `fn` per reduction: PyTorch's node is the reduction's (MeanBackward0,
    SumBackward0) or, unreduced, `none_node`, the last op of its composite."""
    nodes = {"none": none_node, "mean": "MeanBackward0", "sum": "SumBackward0"}
    return {
        reduction: register(op_id if reduction == "mean" else f"{op_id}.{reduction}", fn, node=node)
        for reduction, node in nodes.items()
    }


def clamp_min_zero(z):
    """PyTorch's clamp_min(z, 0): the gradient passes where z >= 0; NaN stays NaN."""
    zero = jnp.zeros((), z.dtype)
    return jnp.where(z >= 0, z, jnp.where(z < 0, zero, lax.stop_gradient(z)))


def _not_differentiable(fname: str, argument: str, tensor) -> None:
    """PyTorch's refusal of an input its kernel has no derivative for."""
    if tensor is not None and tensor.requires_grad and modes.is_grad_enabled():
        raise RuntimeError(
            f"The function '{fname}' is not differentiable with respect to argument "
            f"'{argument}'. This input cannot have requires_grad True."
        )


def _reduction_of(size_average, reduce, reduction: str) -> str:
    """PyTorch's `_Reduction.get_enum`/`legacy_get_enum`: the checked reduction."""
    return _check_reduction(_legacy_reduction(size_average, reduce, reduction))


def _margin_ranking_fn(x1, x2, t, margin, *, reduction):
    return _reduce(clamp_min_zero(-t * (x1 - x2) + margin.astype(x1.dtype)), reduction)


_MARGIN_RANKING = by_reduction("margin_ranking_loss", _margin_ranking_fn, "ClampMinBackward0")


def margin_ranking_loss(
    input1,
    input2,
    target,
    margin: float = 0,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
):
    """max(0, -target * (input1 - input2) + margin): `target` (1 or -1) says which input
    should rank higher."""
    reduction = _reduction_of(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} "
        )
    x1, x2, t = _same_dtype(input1, input2, target)
    margin_input = scalar_input(float(margin))
    return apply(_MARGIN_RANKING[reduction], x1, x2, t, margin_input, reduction=reduction)


def _hinge_fn(x, t, margin, *, reduction):
    x, t = jnp.broadcast_arrays(x, t)
    zero = jnp.zeros((), x.dtype)
    beyond = jnp.where(t != 1, clamp_min_zero(margin.astype(x.dtype) - x), zero)
    return _reduce(beyond + jnp.where(t != -1, x, zero), reduction)


_HINGE = by_reduction("hinge_embedding_loss", _hinge_fn, "AddBackward0")


def hinge_embedding_loss(
    input,
    target,
    margin: float = 1.0,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
):
    """`input` where target is 1, max(0, margin - input) where it is -1."""
    reduction = _reduction_of(size_average, reduce, reduction)
    _check_tensors("hinge_embedding_loss", input, target)
    x, t = _same_dtype(input, target)
    return apply(_HINGE[reduction], x, t, scalar_input(float(margin)), reduction=reduction)


_EPSILON = 1e-12  # PyTorch's cosine_embedding_loss adds it to both squared norms


def _cosine_embedding_fn(x1, x2, t, margin, *, reduction):
    dim = t.ndim
    dot = jnp.sum(x1 * x2, axis=dim)
    norms = (jnp.sum(x1 * x1, axis=dim) + _EPSILON) * (jnp.sum(x2 * x2, axis=dim) + _EPSILON)
    cos = dot / jnp.sqrt(norms)
    zero = jnp.zeros((), cos.dtype)
    similar = jnp.where(t == 1, 1 - cos, zero)
    different = jnp.where(t == -1, clamp_min_zero(cos - margin.astype(cos.dtype)), zero)
    return _reduce(similar + different, reduction)


_COSINE_EMBEDDING = by_reduction("cosine_embedding_loss", _cosine_embedding_fn, "AddBackward0")


def cosine_embedding_loss(
    input1,
    input2,
    target,
    margin: float = 0,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
):
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1."""
    reduction = _reduction_of(size_average, reduce, reduction)
    if target.dim() not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    expected = 2 if target.dim() == 1 else 1
    if input1.dim() != expected or input2.dim() != expected:
        raise RuntimeError(
            f"{target.dim()}D target tensor expects {expected}D input tensors, but found inputs "
            f"with sizes {list(input1.shape)} and {list(input2.shape)}."
        )
    x1, x2, t = _same_dtype(input1, input2, target)
    margin_input = scalar_input(float(margin))
    return apply(_COSINE_EMBEDDING[reduction], x1, x2, t, margin_input, reduction=reduction)


def _soft_margin_fn(x, t, *, reduction):
    return _reduce(jnp.log1p(jnp.exp(-x * t)), reduction)


_SOFT_MARGIN = register("soft_margin_loss", _soft_margin_fn, node="SoftMarginLossBackward0")


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):
    """log(1 + exp(-target * input)): two-class logistic loss with targets 1 and -1."""
    reduction = _reduction_of(size_average, reduce, reduction)
    _check_tensors("soft_margin_loss", input, target)
    _not_differentiable("soft_margin_loss", "target", target)
    x, t = _same_dtype(input, target)
    return apply(_SOFT_MARGIN, x, t, reduction=reduction)


def _multilabel_soft_margin_fn(x, t, *w, reduction):
    loss = -(t * jax.nn.log_sigmoid(x) + (1 - t) * jax.nn.log_sigmoid(-x))
    if w:
        loss = loss * w[0]
    class_dim = x.ndim - 1
    return _reduce(jnp.sum(loss, axis=class_dim) / x.shape[class_dim], reduction)


_MULTILABEL_SOFT_MARGIN = by_reduction(
    "multilabel_soft_margin_loss", _multilabel_soft_margin_fn, "DivBackward0"
)


def multilabel_soft_margin_loss(
    input,
    target,
    weight=None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
):
    """Binary cross-entropy of logits per class, averaged over the classes (last dim)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not valid")
    tensors = _same_dtype(input, target, *([] if weight is None else [weight]))
    return apply(_MULTILABEL_SOFT_MARGIN[reduction], *tensors, reduction=reduction)


def _check_long(target: Tensor) -> None:
    if target.dtype is not _dtypes.int64:
        raise RuntimeError(f"expected scalar type Long but found {scalar_type_name(target.dtype)}")


def _frames(input: Tensor) -> tuple[int, int]:
    """(samples, classes) of a multi-class loss's input: (C,) or () is one sample."""
    ndim = input.ndim
    if not ((ndim == 2 and input.shape[1]) or (ndim == 1 and input.shape[0]) or ndim == 0):
        raise RuntimeError(
            "Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
            f"{list(input.shape)}"
        )
    if ndim <= 1:
        return 1, input.shape[0] if ndim else 1
    return input.shape[0], input.shape[1]


def _multi_margin_fn(x, y, margin, *w, p, reduction, out_shape):
    classes = x.shape[-1] if x.ndim else 1
    x = x.reshape(-1, classes)
    y = y.reshape(-1).astype(jnp.int32)
    picked = jnp.take_along_axis(x, y[:, None], axis=1)
    z = margin.astype(x.dtype) - picked + x
    h = jnp.where(z > 0, z if p == 1 else z * z, jnp.zeros((), x.dtype))
    if w:
        h = h * w[0].reshape(-1)[y][:, None]
    h = jnp.where(jnp.arange(classes) == y[:, None], jnp.zeros((), x.dtype), h)
    loss = jnp.sum(h, axis=1) / classes
    return _reduce(loss.reshape(out_shape), reduction)


_MULTI_MARGIN = register("multi_margin_loss", _multi_margin_fn, node="MultiMarginLossBackward0")


def multi_margin_loss(
    input,
    target,
    p: int = 1,
    margin: float = 1.0,
    weight=None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
):
    """Multi-class hinge loss: sum over j != y of max(0, margin - x[y] + x[j])^p / C."""
    reduction = _reduction_of(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    _check_long(target)
    samples, classes = _frames(input)
    if target.dim() > 1 or target.numel() != samples:
        raise RuntimeError(
            "multi_margin_loss: target tensor should be 1-D with size equal to the number of "
            f"input samples (batch size). Expected target size [{samples}], but got "
            f"{list(target.shape)}. Input has shape {list(input.shape)}."
        )
    if weight is not None and (weight.dim() > 1 or weight.numel() != classes):
        raise RuntimeError(
            f"inconsistent weight size, expected {classes} but got {list(weight.shape)}"
        )
    _not_differentiable("multi_margin_loss", "weight", weight)
    values = host_ints(target)
    if values is not None and ((values < 0) | (values >= classes)).any():
        raise RuntimeError("target out of range")
    extra = [] if weight is None else [weight.to(input.dtype)]
    out_shape = tuple(target.shape) if input.ndim <= 1 else (samples,)
    return apply(
        _MULTI_MARGIN,
        input,
        target,
        scalar_input(float(margin)),
        *extra,
        p=int(p),
        reduction=reduction,
        out_shape=out_shape,
    )


def _multilabel_margin_fn(x, t, *, reduction, out_shape):
    classes = x.shape[-1] if x.ndim else 1
    x = x.reshape(-1, classes)
    t = t.reshape(-1, classes)
    valid = jnp.cumprod(t != -1, axis=1).astype(bool)  # the targets before the first -1
    safe = jnp.where(valid, t, 0).astype(jnp.int32)
    is_target = jnp.any(valid[:, :, None] & (safe[:, :, None] == jnp.arange(classes)), axis=1)
    picked = jnp.take_along_axis(x, safe, axis=1)
    z = 1 - picked[:, :, None] + x[:, None, :]
    counted = valid[:, :, None] & ~is_target[:, None, :] & (z > 0)
    loss = jnp.sum(jnp.where(counted, z, jnp.zeros((), x.dtype)), axis=(1, 2)) / classes
    return _reduce(loss.reshape(out_shape), reduction)


_MULTILABEL_MARGIN = register(
    "multilabel_margin_loss", _multilabel_margin_fn, node="MultilabelMarginLossBackward0"
)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):
    """Multi-label hinge loss: for each target class y (the indices before the first -1)
    and each non-target class j, max(0, 1 - (x[y] - x[j])), summed and divided by C."""
    reduction = _reduction_of(size_average, reduce, reduction)
    _check_long(target)
    samples, classes = _frames(input)
    if input.ndim <= 1:
        consistent = target.dim() <= 1 and target.numel() == classes
    else:
        consistent = tuple(target.shape) == (samples, classes)
    if not consistent:
        raise RuntimeError(
            f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}"
        )
    values = host_ints(target)
    if values is not None and ((values < -1) | (values >= classes)).any():
        raise RuntimeError("argument #2 'target' is out of range")
    out_shape = () if input.ndim <= 1 else (samples,)
    return apply(_MULTILABEL_MARGIN, input, target, reduction=reduction, out_shape=out_shape)


def _triplet_fn(a, pos, neg, p, eps, margin, *, special, swap, reduction):
    d_pos = _pairwise_fn(a, pos, p, eps, special=special, keepdim=False)
    d_neg = _pairwise_fn(a, neg, p, eps, special=special, keepdim=False)
    if swap:
        d_neg = jnp.minimum(d_neg, _pairwise_fn(pos, neg, p, eps, special=special, keepdim=False))
    return _reduce(clamp_min_zero(margin.astype(d_pos.dtype) + d_pos - d_neg), reduction)


_TRIPLET = by_reduction("triplet_margin_loss", _triplet_fn, "ClampMinBackward0")


def _check_triplet_dims(anchor, positive, negative) -> None:
    a_dim, p_dim, n_dim = anchor.ndim, positive.ndim, negative.ndim
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of "
            f"dimensions, but got: anchor {a_dim}D, positive {p_dim}D, and negative {n_dim}D "
            "inputs"
        )


def triplet_margin_loss(
    anchor,
    positive,
    negative,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-6,
    swap: bool = False,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)) with the p-norm distance
    (`swap`: the smaller of d(anchor, negative) and d(positive, negative))."""
    reduction = _reduction_of(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative)
    a, pos, neg = _same_dtype(anchor, positive, negative)
    special, p_input = _p_args(p)
    return apply(
        _TRIPLET[reduction],
        a,
        pos,
        neg,
        p_input,
        scalar_input(float(eps)),
        scalar_input(float(margin)),
        special=special,
        swap=bool(swap),
        reduction=reduction,
    )


def triplet_margin_with_distance_loss(
    anchor,
    positive,
    negative,
    *,
    distance_function=None,
    margin: float = 1.0,
    swap: bool = False,
    reduction: str = "mean",
):
    """The triplet margin loss with any `distance_function` (default: pairwise_distance),
    computed from the distances it returns."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative)
    distance = pairwise_distance if distance_function is None else distance_function
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = minimum(dist_neg, distance(positive, negative))
    loss = clamp_min(margin + dist_pos - dist_neg, 0)
    if reduction == "sum":
        return sum(loss)
    if reduction == "mean":
        return mean(loss)
    return loss
