"""torch.native_batch_norm, torch._native_batch_norm_legit, torch.native_layer_norm and
torch.native_group_norm: the normalizations F.batch_norm, F.layer_norm and F.group_norm
record, returning the statistics they save as well, as (output, mean, rstd) tuples.

They apply the ops of `normalization.py`. The batch and layer norm statistics are no
differentiable outputs in PyTorch, so they are computed outside the graph; group norm's
mean and rstd are outputs of its op, differentiable as in PyTorch.
"""

from __future__ import annotations

from typing import NamedTuple

from ..._pure.op import Op
from ..._state.tensor import Tensor
from ..reduce import var_mean
from ._common import _tensor, register
from .normalization import (
    _BN_EVAL,
    _BN_TRAIN,
    _GROUP_NORM,
    _apply_norm,
    _bn_eval_fn,
    _bn_train_fn,
    _update_running,
    layer_norm,
)

__all__ = [
    "_native_batch_norm_legit",
    "native_batch_norm",
    "native_group_norm",
    "native_layer_norm",
]


class _BatchNormOps(NamedTuple):
    """The ops one batch norm function records: with batch statistics, and with running ones."""

    train: Op
    eval: Op | None


def _legit_op(variant: str, fn, node: str, shown: tuple) -> Op:
    """An op of `_native_batch_norm_legit` applying the batch norm function `fn` (saving its
    residuals where it computes batch statistics, as `batch_norm` does)."""
    residuals = "all" if fn is _bn_train_fn else None
    return register(
        "_native_batch_norm_legit" + variant,
        fn,
        node=node,
        shown_inputs=shown,
        residuals=residuals,
    )


_NATIVE = _BatchNormOps(_BN_TRAIN, _BN_EVAL)
# eps (and the running statistics) stay out of next_functions, as in batch_norm.
_LEGIT = _BatchNormOps(
    _legit_op("", _bn_train_fn, "NativeBatchNormLegitBackward0", (0, 2, 3)),
    _legit_op(".eval", _bn_eval_fn, "NativeBatchNormLegitBackward0", (0, 4, 5)),
)
_LEGIT_NO_STATS = _BatchNormOps(
    _legit_op(".no_stats", _bn_train_fn, "NativeBatchNormLegitBackward1", (0, 2, 3)), None
)


def _batch_norm(ops: _BatchNormOps, name: str, input, weight, bias, stats, training, momentum, eps):
    """(output, save_mean, save_invstd): batch statistics in training (updating the running
    ones in `stats` when given), else the running ones (and empty statistics)."""
    _tensor(input, name)
    running_mean, running_var = stats
    if (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither be None")
    norm_args = dict(eps=eps, weight=weight, bias=bias)
    if not training:
        if ops.eval is None or running_mean is None:
            raise RuntimeError(
                f"{name}: running_mean and running_var must be given when training is False"
            )
        out = _apply_norm(ops.eval, input, running_mean, running_var, **norm_args)
        return out, input.new_empty(0), input.new_empty(0)
    out, mean, unbiased = _apply_norm(ops.train, input, **norm_args)
    if running_mean is not None:
        _update_running(running_mean, mean, float(momentum))
        _update_running(running_var, unbiased, float(momentum))
    count = input.numel() // input.shape[1]
    # the op's variance is the unbiased one, which the running variance takes
    biased = unbiased.detach() * (max(count - 1, 1) / max(count, 1))
    return out, mean.detach(), (biased + eps).rsqrt()


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """Batch normalization over dim 1 as F.batch_norm, returning (output, save_mean,
    save_invstd): the batch mean and 1/sqrt(biased variance + eps) in training (running
    statistics, when given, are updated in place), empty tensors otherwise."""
    stats = (running_mean, running_var)
    return _batch_norm(
        _NATIVE, "native_batch_norm", input, weight, bias, stats, training, momentum, eps
    )


def _native_batch_norm_legit(input, weight, bias, *args, **kwargs):
    """native_batch_norm with running statistics (input, weight, bias, running_mean,
    running_var, training, momentum, eps) or without them (input, weight, bias, training,
    momentum, eps)."""
    if len(args) + len(kwargs) == 3:
        return _legit_no_stats(input, weight, bias, *args, **kwargs)
    return _legit(input, weight, bias, *args, **kwargs)


def _legit(input, weight, bias, running_mean, running_var, training, momentum, eps):
    stats = (running_mean, running_var)
    name = "_native_batch_norm_legit"
    return _batch_norm(_LEGIT, name, input, weight, bias, stats, training, momentum, eps)


def _legit_no_stats(input, weight, bias, training, momentum, eps):
    name = "_native_batch_norm_legit"
    return _batch_norm(
        _LEGIT_NO_STATS, name, input, weight, bias, (None, None), training, momentum, eps
    )


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """F.layer_norm returning (output, mean, rstd); the statistics keep the normalized dims
    as size-1 dims and do not require grad."""
    out = layer_norm(input, normalized_shape, weight, bias, eps)
    dims = tuple(range(input.ndim - len(tuple(normalized_shape)), input.ndim))
    var, mean = var_mean(input.detach(), dims, correction=0, keepdim=True)
    return out, mean, (var + eps).rsqrt()


def _group_norm_checks(input: Tensor, weight, n: int, c: int, hxw: int, group: int) -> None:
    if input.numel() != n * c * hxw:
        raise RuntimeError(
            "Expected X.numel() == N * C * HxW to be true, but got false.  (Could this error "
            "message be improved?  If so, please report an enhancement request to PyTorch.)"
        )
    if c % group:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got input "
            f"of shape {list(input.shape)} and num_groups={group}"
        )
    if weight is not None and (weight.ndim != 1 or weight.numel() != c):
        raise RuntimeError(
            "Expected weight to be a vector of size equal to the number of channels in input, "
            f"but got weight of shape {list(weight.shape)} and input of shape "
            f"{list(input.shape)}"
        )


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """Group normalization of `input` read as (N, C, HxW), returning (output, mean, rstd);
    the statistics have shape (N, group) and are differentiable."""
    _tensor(input, "native_group_norm")
    n, c, hxw, group = int(N), int(C), int(HxW), int(group)
    _group_norm_checks(input, weight, n, c, hxw, group)
    shaped = tuple(input.shape[:2]) == (n, c)
    x = input if shaped else input.reshape(n, c, hxw)
    out, mean, rstd = _apply_norm(_GROUP_NORM, x, eps=eps, weight=weight, bias=bias, groups=group)
    return (out if shaped else out.reshape(input.shape)), mean, rstd
