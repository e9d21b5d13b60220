"""Loss functions, each one fused op, and PyTorch's reduction-argument handling."""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..._pure import dtypes as _dtypes
from ..._pure.op import scalar_input
from ..._pure.softmax import log_softmax
from ..._state.tensor import Tensor, peeked_value
from ..._tape.args import scalar_type_name
from ..._tape.record import apply
from ..elementwise import _xlogy
from ._common import _same_dtype, _tensor, register

__all__ = [
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cross_entropy",
    "huber_loss",
    "kl_div",
    "l1_loss",
    "mse_loss",
    "nll_loss",
    "smooth_l1_loss",
]


def _legacy_reduction(size_average, reduce, reduction: str) -> str:
    """PyTorch's `_Reduction.legacy_get_string`: the deprecated size_average/reduce flags."""
    if size_average is None and reduce is None:
        return reduction
    warnings.warn(
        "size_average and reduce args will be deprecated, please use reduction='"
        + _legacy_string(size_average, reduce)
        + "' instead.",
        UserWarning,
        stacklevel=3,
    )
    return _legacy_string(size_average, reduce)


def _legacy_string(size_average, reduce) -> str:
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        return "mean"
    return "sum" if reduce else "none"


def _check_reduction(reduction: str) -> str:
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _check_tensors(fname: str, input, target) -> None:
    """A loss's first checks: `input` and `target` (argument 2) are Tensors."""
    _tensor(input, fname)
    _tensor(target, fname, "target", 2)


def _legacy_arguments(fname: str, input, target, size_average, reduce, reduction: str) -> str:
    """The reduction of a loss with the deprecated size_average/reduce arguments, checked
    before its Tensors (PyTorch's order)."""
    reduction = _check_reduction(_legacy_reduction(size_average, reduce, reduction))
    _check_tensors(fname, input, target)
    return reduction


def _reduce(loss, reduction: str):
    if reduction == "mean":
        return jnp.mean(loss)
    if reduction == "sum":
        return jnp.sum(loss)
    return loss


def _size_warning(target: Tensor, input: Tensor) -> None:
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            UserWarning,
            stacklevel=3,
        )


def _mse_fn(x, t, *, reduction):
    return _reduce(jnp.square(x - t), reduction)


def _l1_fn(x, t, *, reduction):
    # PyTorch's gradient is sign(x - t): 0 at a NaN (jnp.abs gives -1 there).
    d = x - t
    return _reduce(jnp.where(jnp.isnan(d), lax.stop_gradient(d), jnp.abs(d)), reduction)


def _quadratic_part(d, bound):
    """`d` where |d| < bound (or NaN, whose gradient PyTorch's formula makes NaN), else 0: the
    double where that keeps an infinite `d` out of the quadratic branch's derivative (inf * 0),
    so the loss's gradient at +-inf is PyTorch's +-1 (times delta for huber)."""
    return jnp.where((jnp.abs(d) < bound) | jnp.isnan(d), d, jnp.zeros((), d.dtype))


def _smooth_l1_fn(x, t, beta, *, reduction):
    d, beta = x - t, beta.astype(x.dtype)
    a, q = jnp.abs(d), _quadratic_part(d, beta)
    return _reduce(jnp.where(a < beta, 0.5 * q * q / beta, a - 0.5 * beta), reduction)


def _huber_fn(x, t, delta, *, reduction):
    d, delta = x - t, delta.astype(x.dtype)
    a, q = jnp.abs(d), _quadratic_part(d, delta)
    return _reduce(jnp.where(a < delta, 0.5 * q * q, delta * (a - 0.5 * delta)), reduction)


_MSE = register("mse_loss", _mse_fn, node="MseLossBackward0")
_L1 = register("l1_loss", _l1_fn, node="MeanBackward0")
# beta and delta are runtime inputs (`scalar_input`): a new value never compiles.
_SMOOTH_L1 = register(
    "smooth_l1_loss", _smooth_l1_fn, node="SmoothL1LossBackward0", shown_inputs=(0, 1)
)
_HUBER = register("huber_loss", _huber_fn, node="HuberLossBackward0", shown_inputs=(0, 1))


def _regression(op, fname, input, target, reduction, *scalars: float):
    """`op` of input and target (and the runtime `scalars`), after PyTorch's checks."""
    _check_tensors(fname, input, target)
    _size_warning(target, input)
    _check_reduction(reduction)
    x, t = _same_dtype(input, target, floating=False)
    return apply(op, x, t, *map(scalar_input, scalars), reduction=reduction)


def mse_loss(input, target, size_average=None, reduce=None, reduction: str = "mean", weight=None):
    """Mean squared error (or its sum, or per element with reduction='none')."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if weight is not None:
        raise NotImplementedError("mse_loss(weight=) is not yet supported by autograd_compat")
    return _regression(_MSE, "mse_loss", input, target, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):
    """Mean absolute error."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    return _regression(_L1, "l1_loss", input, target, reduction)


def smooth_l1_loss(
    input, target, size_average=None, reduce=None, reduction: str = "mean", beta: float = 1.0
):
    """Squared error below `beta` (scaled by 1/beta), absolute error above it."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:
        return _regression(_L1, "smooth_l1_loss", input, target, reduction)
    return _regression(_SMOOTH_L1, "smooth_l1_loss", input, target, reduction, float(beta))


def huber_loss(input, target, reduction: str = "mean", delta: float = 1.0, weight=None):
    """Squared error below `delta`, delta-scaled absolute error above it."""
    if weight is not None:
        raise NotImplementedError("huber_loss(weight=) is not yet supported by autograd_compat")
    return _regression(_HUBER, "huber_loss", input, target, reduction, float(delta))


def _check_class_target(target: Tensor) -> None:
    if target.dtype not in (_dtypes.int64, _dtypes.uint8):
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {scalar_type_name(target.dtype)}"
        )


def _check_nll_shapes(input: Tensor, target: Tensor) -> None:
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    multi = "0D or 1D target tensor expected, multi-target not supported"
    if input.ndim == 1:
        if target.ndim != 0:
            raise RuntimeError(multi)
        return
    if target.ndim == 0 or (input.ndim == 2 and target.ndim != 1):
        raise RuntimeError(multi)
    if input.shape[0] != target.shape[0]:
        raise ValueError(
            f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
            f"({target.shape[0]})."
        )
    if input.ndim > 2 and tuple(target.shape[1:]) != tuple(input.shape[2:]):
        raise RuntimeError(
            f"Expected target size {[input.shape[0]] + list(input.shape[2:])}, got "
            f"{list(target.shape)}"
        )


def host_ints(target: Tensor) -> np.ndarray | None:
    """The class indices of `target` as int64 on the host for a range check; None while
    traced (nothing to read)."""
    stored = target._stored
    if type(stored) is np.ndarray:  # a leaf still on the host: read its copy, transfer nothing
        return stored.astype(np.int64)
    value = peeked_value(target)
    if isinstance(value, jax.core.Tracer):
        return None
    return np.asarray(value).astype(np.int64)


def _check_targets_in_range(target: Tensor, classes: int, ignore_index: int) -> None:
    values = host_ints(target)
    if values is None:
        return
    bad = values[(values != ignore_index) & ((values < 0) | (values >= classes))]
    if bad.size:
        raise IndexError(f"Target {int(bad.flat[0])} is out of bounds.")


def _class_last(x):
    """(N, C, d...) -> (N, d..., C); (C,) stays."""
    return jnp.moveaxis(x, 1, -1) if x.ndim > 1 else x


def _nll_parts(logp, t, w, ignore_index):
    """Per-element -w[t] * logp[t] and the weights w[t] (0 where t == ignore_index)."""
    logp = _class_last(logp)
    keep = t != ignore_index
    safe = jnp.where(keep, t, 0).astype(jnp.int32)
    picked = jnp.take_along_axis(logp, safe[..., None], axis=-1)[..., 0]
    weights = (
        keep.astype(logp.dtype) if w is None else jnp.where(keep, w[safe], 0).astype(logp.dtype)
    )
    return -picked * weights, weights


def _weighted_mean(total, weight):
    """total / weight; NaN when everything was ignored (weight 0), with a zero gradient
    there as PyTorch's nll_loss backward gives, instead of 0 * inf."""
    empty = weight == 0
    safe = jnp.where(empty, jnp.ones((), weight.dtype), weight)
    return jnp.where(empty, jnp.full((), jnp.nan, total.dtype), total / safe)


def _nll_reduce(losses, weights, reduction):
    if reduction == "mean":
        return _weighted_mean(jnp.sum(losses), jnp.sum(weights))
    if reduction == "sum":
        return jnp.sum(losses)
    return losses


def _nll_fn(logp, t, *w, ignore_index, reduction):
    losses, weights = _nll_parts(logp, t, w[0] if w else None, ignore_index)
    return _nll_reduce(losses, weights, reduction)


def _cross_entropy_fn(x, t, *w, ignore_index, reduction, label_smoothing):
    class_dim = 1 if x.ndim > 1 else 0
    logp = log_softmax(x, class_dim)
    weight = w[0] if w else None
    losses, weights = _nll_parts(logp, t, weight, ignore_index)
    nll = _nll_reduce(losses, weights, reduction)
    if not label_smoothing:
        return nll
    classes = x.shape[class_dim]
    per_class = _class_last(logp)
    if weight is not None:
        per_class = per_class * weight
    smooth = -jnp.sum(per_class, axis=-1)
    keep = t != ignore_index
    smooth = jnp.where(keep, smooth, 0)
    if reduction == "mean":
        if weight is not None:
            safe = jnp.where(keep, t, 0).astype(jnp.int32)
            smooth = _weighted_mean(
                jnp.sum(smooth), jnp.sum(jnp.where(keep, weight[safe], 0)).astype(smooth.dtype)
            )
        else:
            smooth = _weighted_mean(jnp.sum(smooth), jnp.sum(keep).astype(smooth.dtype))
    elif reduction == "sum":
        smooth = jnp.sum(smooth)
    return (1 - label_smoothing) * nll + smooth * (label_smoothing / classes)


def _cross_entropy_prob_fn(x, t, *w, reduction, label_smoothing):
    class_dim = 1 if x.ndim > 1 else 0
    classes = x.shape[class_dim]
    logp = log_softmax(x, class_dim)
    if label_smoothing > 0:
        t = t * (1 - label_smoothing) + label_smoothing / classes
    terms = logp * t
    if w:
        terms = terms * w[0].reshape((-1,) + (1,) * (x.ndim - class_dim - 1))
    if reduction == "mean":
        return -jnp.sum(terms) / (x.size / classes)
    if reduction == "sum":
        return -jnp.sum(terms)
    return -jnp.sum(terms, axis=class_dim)


_NLL = register("nll_loss", _nll_fn, node="NllLossBackward0")
_CROSS_ENTROPY = register("cross_entropy", _cross_entropy_fn, node="NllLossBackward0")
_CROSS_ENTROPY_SMOOTH = register(
    "cross_entropy.label_smoothing", _cross_entropy_fn, node="AddBackward0"
)
_CROSS_ENTROPY_PROB = register("cross_entropy.probs", _cross_entropy_prob_fn, node="DivBackward1")


def _check_weight(weight, classes: int, fname: str):
    if weight is None:
        return []
    _tensor(weight, fname, "weight", 3)
    if weight.ndim != 1 or weight.numel() != classes:
        raise RuntimeError(
            f"weight tensor should be defined either for all {classes} classes or no classes but "
            f"got weight tensor of shape: {list(weight.shape)}"
        )
    return [weight]


def nll_loss(
    input,
    target,
    weight=None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
):
    """Negative log-likelihood of class indices given log-probabilities (N, C, d...)."""
    reduction = _legacy_arguments("nll_loss_nd", input, target, size_average, reduce, reduction)
    _check_nll_shapes(input, target)
    _check_class_target(target)
    classes = input.shape[1] if input.ndim > 1 else input.shape[0]
    extra = _check_weight(weight, classes, "nll_loss")
    _check_targets_in_range(target, classes, ignore_index)
    return apply(_NLL, input, target, *extra, ignore_index=int(ignore_index), reduction=reduction)


def cross_entropy(
    input,
    target,
    weight=None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
):
    """log_softmax + nll_loss in one op, for class indices or class probabilities.

    Example::

        >>> logits = torch.randn(4, 3, requires_grad=True)
        >>> F.cross_entropy(logits, torch.tensor([0, 2, 1, 0])).backward()
    """
    reduction = _legacy_arguments(
        "cross_entropy_loss", input, target, size_average, reduce, reduction
    )
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    classes = input.shape[1] if input.ndim > 1 else input.shape[0]
    extra = _check_weight(weight, classes, "cross_entropy")
    if target.shape == input.shape:  # class probabilities
        if not target.dtype.is_floating_point:
            raise RuntimeError(
                "Expected floating point type for target with class probabilities, got "
                f"{scalar_type_name(target.dtype)}"
            )
        x, t = _same_dtype(input, target)
        return apply(
            _CROSS_ENTROPY_PROB,
            x,
            t,
            *extra,
            reduction=reduction,
            label_smoothing=float(label_smoothing),
        )
    _check_nll_shapes(input, target)
    _check_class_target(target)
    _check_targets_in_range(target, classes, ignore_index)
    op = _CROSS_ENTROPY_SMOOTH if label_smoothing > 0 else _CROSS_ENTROPY
    return apply(
        op,
        input,
        target,
        *extra,
        ignore_index=int(ignore_index),
        reduction=reduction,
        label_smoothing=float(label_smoothing),
    )


@jax.custom_jvp
def _bce_elementwise(x, t):
    log_x = jnp.maximum(jnp.log(x), -100.0)
    log_1mx = jnp.maximum(jnp.log1p(-x), -100.0)
    return -(t * log_x + (1 - t) * log_1mx)


@_bce_elementwise.defjvp
def _bce_jvp(primals, tangents):
    """PyTorch's BCE derivative: (x - t) / max(x (1 - x), 1e-12), finite at 0 and 1."""
    x, t = primals
    x_dot, t_dot = tangents
    out = _bce_elementwise(x, t)
    d_x = (x - t) / jnp.maximum((1 - x) * x, 1e-12)
    d_t = jnp.log1p(-x) - jnp.log(x)
    return out, d_x * x_dot + d_t * t_dot


def _bce_fn(x, t, *w, reduction):
    loss = _bce_elementwise(x, t)
    if w:
        loss = loss * w[0]
    return _reduce(loss, reduction)


def _bce_logits_fn(x, t, *extra, reduction, has_weight, has_pos_weight):
    extra = list(extra)
    weight = extra.pop(0) if has_weight else None
    pos_weight = extra.pop(0) if has_pos_weight else None
    log_sigmoid = jax.nn.log_sigmoid(x)
    if pos_weight is not None:
        log_sigmoid = log_sigmoid * ((pos_weight - 1) * t + 1)
    loss = (1 - t) * x - log_sigmoid
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


_BCE = register("binary_cross_entropy", _bce_fn, node="BinaryCrossEntropyBackward0")
_BCE_LOGITS = register(
    "binary_cross_entropy_with_logits", _bce_logits_fn, node="BinaryCrossEntropyWithLogitsBackward0"
)


def binary_cross_entropy(
    input, target, weight=None, size_average=None, reduce=None, reduction: str = "mean"
):
    """-(t log x + (1 - t) log(1 - x)), with logs clamped at -100 as in PyTorch."""
    reduction = _legacy_arguments(
        "binary_cross_entropy", input, target, size_average, reduce, reduction
    )
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size."
        )
    if not isinstance(input._value, jax.core.Tracer) and input.numel():
        values = np.asarray(input._value)
        with np.errstate(invalid="ignore"):  # (ml_dtypes' bfloat16 compare warns on NaN)
            inside = ((values >= 0) & (values <= 1)).all()
        if not inside:
            raise RuntimeError("all elements of input should be between 0 and 1")
    extra = [] if weight is None else [weight.to(input.dtype)]
    return apply(_BCE, input, target, *extra, reduction=reduction)


def binary_cross_entropy_with_logits(
    input,
    target,
    weight=None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    pos_weight=None,
):
    """sigmoid + binary cross-entropy in one numerically stable op."""
    reduction = _legacy_arguments(
        "binary_cross_entropy_with_logits", input, target, size_average, reduce, reduction
    )
    if target.shape != input.shape:
        raise ValueError(
            f"Target size ({target.shape}) must be the same as input size ({input.shape})"
        )
    x, t = _same_dtype(input, target, floating=False)
    extra = [e.to(x.dtype) for e in (weight, pos_weight) if e is not None]
    return apply(
        _BCE_LOGITS,
        x,
        t,
        *extra,
        reduction=reduction,
        has_weight=weight is not None,
        has_pos_weight=pos_weight is not None,
    )


def _kl_div_fn(x, t, *, reduction, log_target):
    if log_target:
        loss = jnp.exp(t) * (t - x)
    else:
        loss = _xlogy(t, t) - t * x  # PyTorch's xlogy derivatives (NaN for t < 0)
    if reduction == "batchmean":
        return jnp.sum(loss) / (x.shape[0] if x.ndim else 1)
    return _reduce(loss, reduction)


# One op per reduction, named after the node PyTorch's kl_div ends in.
_KL_DIV = {
    reduction: register(op_id, _kl_div_fn, node=node)
    for reduction, op_id, node in (
        ("mean", "kl_div", "MeanBackward0"),
        ("sum", "kl_div.sum", "SumBackward0"),
        ("batchmean", "kl_div.batchmean", "DivBackward0"),
        ("none", "kl_div.none", "SubBackward0"),
    )
}


def kl_div(
    input,
    target,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    log_target: bool = False,
):
    """KL divergence with `input` as log-probabilities; use reduction='batchmean' for the math
    definition ('mean' averages over every element, with PyTorch's warning)."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce, reduction)
    elif reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support "
            "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
            "major release.",
            UserWarning,
            stacklevel=2,
        )
    if reduction not in ("mean", "sum", "none", "batchmean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    _check_tensors("kl_div", input, target)
    x, t = _same_dtype(input, target, floating=False)
    return apply(_KL_DIV[reduction], x, t, reduction=reduction, log_target=bool(log_target))
