"""The connectionist temporal classification loss: -log of the total probability of the
alignments of each target to its input, by the forward (alpha) recursion in log space.

PyTorch's backward gives d/d log_probs = exp(log_probs) - posterior (the gradient of the
logits when log_probs is a log_softmax); the loss keeps that with a `jax.custom_jvp` whose
tangent adds exp(log_probs) over each sequence's own time steps to the true derivative.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..._pure.op import register
from ..._state.tensor import Tensor
from ..._tape.record import apply
from ..factories import tensor
from ._common import _tensor

__all__ = ["ctc_loss"]

_NEG_INF = -jnp.inf


def _logaddexp(a, b):
    """log(exp(a) + exp(b)), -inf with a zero (not NaN) derivative where both are -inf."""
    empty = jnp.isneginf(a) & jnp.isneginf(b)
    zero = jnp.zeros((), a.dtype)
    summed = jnp.logaddexp(jnp.where(empty, zero, a), jnp.where(empty, zero, b))
    return jnp.where(empty, _NEG_INF, summed)


def _nll_exact(lp, targets, input_lengths, target_lengths, blank):
    """Per-sample -log p(target | input): lp (T, N, C), targets (N, S) padded."""
    steps, batch, _ = lp.shape
    width = 2 * targets.shape[1] + 1
    labels = jnp.full((batch, width), blank, targets.dtype).at[:, 1::2].set(targets)
    skip = (
        jnp.zeros((batch, width), bool)
        .at[:, 2:]
        .set((labels[:, 2:] != blank) & (labels[:, 2:] != labels[:, :-2]))
    )
    emit = jnp.take_along_axis(lp, jnp.broadcast_to(labels[None], (steps, batch, width)), axis=2)
    start = jnp.full((batch, width), _NEG_INF, lp.dtype)
    start = start.at[:, 0].set(emit[0, :, 0]).at[:, 1].set(emit[0, :, 1])
    neg = jnp.full((batch, 1), _NEG_INF, lp.dtype)

    def step(alpha, inputs):
        t, e = inputs
        one = jnp.concatenate([neg, alpha[:, :-1]], axis=1)
        two = jnp.where(skip, jnp.concatenate([neg, neg, alpha[:, :-2]], axis=1), _NEG_INF)
        new = _logaddexp(_logaddexp(alpha, one), two) + e
        return jnp.where((t < input_lengths)[:, None], new, alpha), None

    alpha, _ = lax.scan(step, start, (jnp.arange(1, steps), emit[1:]))
    end = 2 * target_lengths
    last = jnp.take_along_axis(alpha, end[:, None], axis=1)[:, 0]
    before = jnp.where(
        end > 0, jnp.take_along_axis(alpha, jnp.maximum(end - 1, 0)[:, None], axis=1)[:, 0],
        _NEG_INF,
    )  # fmt: skip
    return -_logaddexp(last, before)


def _nll(lp, targets, input_lengths, target_lengths, blank):
    @jax.custom_jvp
    def nll(lp):
        return _nll_exact(lp, targets, input_lengths, target_lengths, blank)

    @nll.defjvp
    def nll_jvp(primals, tangents):
        (lp,), (lp_dot,) = primals, tangents

        def exact(v):
            return _nll_exact(v, targets, input_lengths, target_lengths, blank)

        value, tangent = jax.jvp(exact, (lp,), (lp_dot,))
        live = (jnp.arange(lp.shape[0])[:, None] < input_lengths[None, :])[..., None]
        extra = jnp.sum(jnp.where(live, jnp.exp(lp) * lp_dot, 0), axis=(0, 2))
        return value, tangent + extra

    return nll(lp)


def _ctc_fn(lp, targets, input_lengths, target_lengths, *, blank, reduction, zero_infinity):
    batched = lp.ndim == 3
    if not batched:
        lp, targets = lp[:, None], targets[None]
        input_lengths, target_lengths = input_lengths.reshape(1), target_lengths.reshape(1)
    input_lengths = input_lengths.astype(jnp.int32)
    target_lengths = target_lengths.astype(jnp.int32)
    loss = _nll(lp, targets.astype(jnp.int32), input_lengths, target_lengths, blank)
    if zero_infinity:
        loss = jnp.where(jnp.isinf(loss), jnp.zeros((), loss.dtype), loss)
    if reduction == "mean":
        return jnp.mean(loss / jnp.maximum(target_lengths, 1).astype(loss.dtype))
    if reduction == "sum":
        return jnp.sum(loss)
    return loss if batched else loss[0]


_CTC = {
    reduction: register(op_id, _ctc_fn, node=node, shown_inputs=(0,))
    for reduction, op_id, node in (
        ("none", "ctc_loss", "CtcLossBackward0"),
        ("mean", "ctc_loss.mean", "MeanBackward0"),
        ("sum", "ctc_loss.sum", "SumBackward0"),
    )
}


def _padded(targets: Tensor, target_lengths: np.ndarray) -> Tensor:
    """Concatenated 1-D targets as a padded (N, max length) matrix."""
    values = np.asarray(targets.detach().cpu().numpy()).astype(np.int64)
    width = max(int(target_lengths.max(initial=0)), 1)
    rows = np.zeros((len(target_lengths), width), np.int64)
    offset = 0
    for i, length in enumerate(target_lengths):
        rows[i, :length] = values[offset : offset + length]
        offset += length
    return tensor(rows)


def ctc_loss(
    log_probs,
    targets,
    input_lengths,
    target_lengths,
    blank: int = 0,
    reduction: str = "mean",
    zero_infinity: bool = False,
):
    """The CTC loss of log-probabilities (T, N, C) or (T, C) against targets padded (N, S)
    or concatenated (sum of target_lengths); 'mean' divides each loss by its target length."""
    _tensor(log_probs, "ctc_loss")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    classes = log_probs.shape[-1]
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    lengths_in = np.asarray(
        input_lengths.tolist() if isinstance(input_lengths, Tensor) else input_lengths, np.int64
    ).reshape(-1)
    lengths_out = np.asarray(
        target_lengths.tolist() if isinstance(target_lengths, Tensor) else target_lengths,
        np.int64,
    ).reshape(-1)
    steps = log_probs.shape[0]
    if lengths_in.size and lengths_in.max() > steps:
        raise RuntimeError(
            f"Expected input_lengths to have value at most {steps}, but got value "
            f"{int(lengths_in.max())} (while checking arguments for ctc_loss_allocate_outputs)"
        )
    if targets.dim() == 1 and log_probs.dim() == 3:
        targets = _padded(targets, lengths_out)
    elif targets.dim() >= 1 and lengths_out.size and targets.shape[-1] < lengths_out.max():
        raise RuntimeError(
            f"Expected tensor to have size at least {int(lengths_out.max())} at dimension 1, "
            f"but got size {targets.shape[-1]} for argument #2 'targets' (while checking "
            "arguments for ctc_loss_allocate_outputs)"
        )
    return apply(
        _CTC[reduction],
        log_probs,
        targets,
        tensor(lengths_in),
        tensor(lengths_out),
        blank=int(blank),
        reduction=reduction,
        zero_infinity=bool(zero_infinity),
    )
