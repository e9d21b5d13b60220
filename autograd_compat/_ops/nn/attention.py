"""scaled_dot_product_attention and multi_head_attention_forward, each one fused op."""

from __future__ import annotations

import functools
import math
import warnings

import jax
import jax.numpy as jnp

from ..._pure import dtypes as _dtypes
from ..._pure import shapes as _shapes
from ..._pure.softmax import softmax
from ..._state.modes import modes as _modes
from ..._state.tensor import Tensor
from ..._tape.record import apply
from ..factories import zeros_like
from ..index import masked_fill
from ._common import _HIGHEST, _tensor, register
from .dropout import _dropout_op, dropout_source

__all__ = ["multi_head_attention_forward", "scaled_dot_product_attention"]


def _safe_softmax(scores):
    """Softmax over the keys, with 0 for a query that every key is masked from (scores all
    -inf): PyTorch's scaled_dot_product_attention gives such rows zeros and finite
    gradients where a plain softmax gives NaN (the scores are replaced before the softmax, so
    its gradient stays finite too)."""
    empty = jnp.all(scores == -jnp.inf, axis=-1, keepdims=True)
    weights = softmax(jnp.where(empty, jnp.zeros((), scores.dtype), scores), -1)
    return jnp.where(empty, jnp.zeros((), weights.dtype), weights)


def _attention_fn(
    q, k, v, *extra, scale, causal, has_mask, mask_is_bool, dropout_p, groups=1, flash=False
):
    """`groups` query heads share each key and value head (grouped-query attention);
    `flash`: differentiated as PyTorch's flash attention kernel for CPU is (`_flash`)."""
    if groups > 1:
        k = jnp.repeat(k, groups, axis=-3)
        v = jnp.repeat(v, groups, axis=-3)
    extra = list(extra)
    mask = extra.pop(0) if has_mask else None
    key = extra.pop(0) if dropout_p > 0 else None
    if causal:  # (an explicit mask was refused with is_causal)
        length, source = q.shape[-2], k.shape[-2]
        allowed = jnp.tril(jnp.ones((length, source), bool))
        # every query sees the first key: no row is masked everywhere, a plain softmax serves
        weights = softmax(jnp.where(allowed, _scores(q, k, None, scale), -jnp.inf), -1)
    else:
        if mask is not None and mask_is_bool:
            mask = jnp.where(mask, jnp.zeros((), q.dtype), -jnp.inf)
        elif mask is not None:
            mask = mask.astype(q.dtype)
        if flash:
            return _flash(q, k, v, mask, scale)  # (only under an additive mask)
        weights = _safe_softmax(_scores(q, k, mask, scale))
    if key is not None:
        weights = _dropout_op(weights, key, dropout_p)
    return jnp.matmul(weights, v, precision=_HIGHEST)


def _scores(q, k, bias, scale):
    """Q K^T * scale plus the additive mask (0 where a key is seen, -inf where it is not)."""
    scores = jnp.matmul(q, jnp.swapaxes(k, -1, -2), precision=_HIGHEST) * scale
    return scores if bias is None else scores + bias


@functools.partial(jax.custom_vjp, nondiff_argnums=(4,))
def _flash(q, k, v, bias, scale):
    """Attention as PyTorch's flash kernel for CPU computes it, whose backward rebuilds the
    weights from the saved log-sum-exp of the scores rather than from the softmax: where
    the scores are near the dtype's lowest value (a row masked everywhere by an additive
    mask, ALiBi's) the log-sum-exp rounds to the maximum and every rebuilt weight is 1."""
    return _flash_forward(q, k, v, bias, scale)[0]


def _flash_forward(q, k, v, bias, scale):
    scores = _scores(q, k, bias, scale)
    weights = _safe_softmax(scores)
    out = jnp.matmul(weights, v, precision=_HIGHEST)
    empty = jnp.all(scores == -jnp.inf, axis=-1, keepdims=True)
    peak = jnp.where(empty, jnp.zeros((), scores.dtype), jnp.max(scores, -1, keepdims=True))
    total = jnp.sum(jnp.exp(scores - peak), -1, keepdims=True)
    lse = jnp.where(empty, jnp.inf, peak + jnp.log(total))
    return out, (q, k, v, scores, out, lse, bias)


def _flash_backward(scale, saved, grad):
    """The kernel's backward from the saved scores (not recomputed: one product fewer) and
    log-sum-exp."""
    q, k, v, scores, out, lse, bias = saved
    weights = jnp.exp(scores - lse)  # 0 where every key is masked
    grad_weights = jnp.matmul(grad, jnp.swapaxes(v, -1, -2), precision=_HIGHEST)
    grad_scores = weights * (grad_weights - jnp.sum(grad * out, -1, keepdims=True))
    grad_q = jnp.matmul(grad_scores, k, precision=_HIGHEST) * scale
    grad_k = jnp.matmul(jnp.swapaxes(grad_scores, -1, -2), q, precision=_HIGHEST) * scale
    grad_v = jnp.matmul(jnp.swapaxes(weights, -1, -2), grad, precision=_HIGHEST)
    return grad_q, grad_k, grad_v, _sum_to(grad_scores, bias.shape)


_flash.defvjp(_flash_forward, _flash_backward)


def _sum_to(x, shape):
    """`x` summed over the dimensions broadcasting added or expanded to reach it from `shape`."""
    lead = x.ndim - len(shape)
    x = jnp.sum(x, axis=tuple(range(lead))) if lead else x
    expanded = tuple(i for i, n in enumerate(shape) if n == 1 and x.shape[i] != 1)
    return jnp.sum(x, axis=expanded, keepdims=True) if expanded else x


_SDPA = register(
    "scaled_dot_product_attention",
    _attention_fn,
    node="ScaledDotProductFlashAttentionForCpuBackward0",
)


def scaled_dot_product_attention(
    query,
    key,
    value,
    attn_mask=None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale=None,
    enable_gqa: bool = False,
):
    """softmax(Q K^T * scale + mask) V, one fused op (dropout draws from our generator)."""
    _tensor(query, "scaled_dot_product_attention", "query")
    _tensor(key, "scaled_dot_product_attention", "key", 2)
    _tensor(value, "scaled_dot_product_attention", "value", 3)
    if is_causal and attn_mask is not None:
        raise RuntimeError(
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
            "is_causal=True"
        )
    groups = _query_groups(query, key, value) if enable_gqa else 1
    batch = tuple(query.shape[:-2])
    for other in (key, value):
        heads = tuple(other.shape[:-2])
        if groups > 1:
            heads = (*heads[:-1], heads[-1] * groups)
        batch = _shapes.broadcast_shapes(batch, heads)
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else float(scale)
    flash = _takes_flash_kernel(query, key, value, attn_mask, dropout_p)
    if (
        flash
        and _modes.fw_level is not None
        and any(t._fw_grad is not None for t in (query, key, value))
    ):
        raise NotImplementedError(_NO_FORWARD_AD)
    extra = []
    if attn_mask is not None:
        extra.append(attn_mask)
    if dropout_p > 0:  # PyTorch's math kernel drops the attention weights out
        scores = (*batch, query.shape[-2], key.shape[-2])
        extra.append(dropout_source(query, float(dropout_p), scores))
    return apply(
        _SDPA,
        query,
        key,
        value,
        *extra,
        scale=scale,
        causal=bool(is_causal),
        has_mask=attn_mask is not None,
        mask_is_bool=attn_mask is not None and attn_mask.dtype is _dtypes.bool,
        dropout_p=float(dropout_p),
        groups=groups,
        # The kernel's backward differs from the softmax's only under an additive mask (a row
        # at the dtype's lowest value everywhere); elsewhere the softmax's, which costs less.
        flash=flash and attn_mask is not None and attn_mask.dtype is not _dtypes.bool,
    )


_NO_FORWARD_AD = (
    "Trying to use forward AD with _scaled_dot_product_flash_attention_for_cpu that does not "
    "support it because it has not been implemented yet.\nPlease file an issue to PyTorch at "
    "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so that we can "
    "prioritize its implementation or submit a PR adding the implementation to derivatives.yaml"
)


def _takes_flash_kernel(query, key, value, attn_mask, dropout_p) -> bool:
    """Whether PyTorch runs its flash attention kernel for CPU here rather than the math one:
    4-d inputs, no dropout, no mask that needs a gradient."""
    masked_grad = attn_mask is not None and attn_mask.requires_grad
    return query.ndim == key.ndim == value.ndim == 4 and dropout_p == 0 and not masked_grad


def _query_groups(query, key, value) -> int:
    """How many query heads (dim -3) share each key and value head under enable_gqa, with
    PyTorch's error where the heads of key and value do not divide the query's."""
    if min(query.ndim, key.ndim, value.ndim) < 3:
        return 1
    heads, kv_heads = query.shape[-3], key.shape[-3]
    if kv_heads != value.shape[-3] or heads % kv_heads:
        raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
    return heads // kv_heads


def _pad_key_axis(mask):
    """A mask with one more key column that masks nothing (for bias_k or the zero key)."""
    if mask is None:
        return None
    return jnp.pad(mask, [(0, 0)] * (mask.ndim - 1) + [(0, 1)])


def _mha_fn(
    query,
    key,
    value,
    *tensors,
    num_heads,
    separate_proj,
    has_in_bias,
    has_out_bias,
    has_bias_kv,
    zero_attn,
    has_kpm,
    has_mask,
    dropout_p,
    need_weights,
    average,
    causal,
):
    """Multi-head attention on (L, N, E) inputs, PyTorch's multi_head_attention_forward.

    `tensors`: the in-projection weight (or q, k, v weights), the out-projection weight, then
    whichever of in_proj_bias, out_proj_bias, bias_k and bias_v, key_padding_mask, attn_mask
    (both float: additive) and the dropout key the flags say are present.
    """
    inputs = iter(tensors)

    def present(flag):
        return next(inputs) if flag else None

    if separate_proj:
        w_q, w_k, w_v = next(inputs), next(inputs), next(inputs)
    else:
        w_q, w_k, w_v = jnp.split(next(inputs), 3)
    out_w = next(inputs)
    in_b, out_b = present(has_in_bias), present(has_out_bias)
    bias_k, bias_v = present(has_bias_kv), present(has_bias_kv)
    kpm, mask, rng = present(has_kpm), present(has_mask), present(dropout_p > 0)
    length, batch, embed = query.shape
    head = embed // num_heads
    b_q, b_k, b_v = jnp.split(in_b, 3) if in_b is not None else (None, None, None)

    def project(x, w, b):
        y = jnp.matmul(x, w.T, precision=_HIGHEST)
        return y if b is None else y + b

    q, k, v = project(query, w_q, b_q), project(key, w_k, b_k), project(value, w_v, b_v)
    if has_bias_kv:  # one more key and value, the same for every batch entry
        k = jnp.concatenate([k, jnp.broadcast_to(bias_k, (1, batch, embed))])
        v = jnp.concatenate([v, jnp.broadcast_to(bias_v, (1, batch, embed))])
        kpm, mask = _pad_key_axis(kpm), _pad_key_axis(mask)

    def heads(x):  # (S, N, E) -> (N, H, S, head)
        return x.reshape(x.shape[0], batch, num_heads, head).transpose(1, 2, 0, 3)

    q, k, v = heads(q), heads(k), heads(v)
    if zero_attn:  # one more all-zero key and value per head
        k, v = (jnp.pad(x, ((0, 0), (0, 0), (0, 1), (0, 0))) for x in (k, v))
        kpm, mask = _pad_key_axis(kpm), _pad_key_axis(mask)
    source = k.shape[2]
    bias = jnp.zeros((batch, num_heads, length, source), q.dtype)
    if causal:
        allowed = jnp.tril(jnp.ones((length, source), bool))
        bias = jnp.where(allowed, bias, -jnp.inf)
    if mask is not None:
        bias = bias + (mask.reshape(batch, num_heads, length, source) if mask.ndim == 3 else mask)
    if kpm is not None:
        bias = bias + kpm[:, None, None, :]
    q = q * jnp.asarray(math.sqrt(1.0 / head), q.dtype)
    scores = jnp.matmul(q, jnp.swapaxes(k, -1, -2), precision=_HIGHEST) + bias
    # PyTorch computes need_weights=False with scaled_dot_product_attention, need_weights=True
    # with a plain softmax (NaN for a query with every key masked)
    weights = softmax(scores, -1) if need_weights else _safe_softmax(scores)
    attended = weights if rng is None else _dropout_op(weights, rng, dropout_p)
    out = jnp.matmul(attended, v, precision=_HIGHEST)  # (N, H, L, head)
    out = out.transpose(2, 0, 1, 3).reshape(length, batch, embed)
    out = project(out, out_w, out_b)
    if not need_weights:
        return out
    if average:  # (the weights as the values were weighted: after dropout, as PyTorch's)
        return out, jnp.mean(attended, axis=1)
    return out, attended


_MHA = register("multi_head_attention_forward", _mha_fn, node="ViewBackward0")


def _none_or_dtype(input):
    """The dtype of an optional mask (PyTorch's F._none_or_dtype)."""
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _canonical_mask(
    mask,
    mask_name: str,
    other_type,
    other_name: str,
    target_type,
    check_other: bool = True,
):
    """A bool or float mask as an additive float mask (-inf where a bool mask is True).

    PyTorch's F._canonical_mask: other integer dtypes are an AssertionError, and a mask whose
    dtype differs from its companion's (`other_type`) warns that mixing them is deprecated.
    """
    if mask is None:
        return None
    is_float = mask.dtype.is_floating_point
    if mask.dtype is not _dtypes.bool and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype is not other_type:
        warnings.warn(
            f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type "
            "for both instead.",
            UserWarning,
            stacklevel=3,
        )
    if is_float:
        return mask
    return masked_fill(zeros_like(mask, dtype=target_type), mask, float("-inf"))


def _check_projection_shapes(key, value, separate_proj: bool) -> None:
    """PyTorch's checks that key and value fit the in-projection."""
    if separate_proj:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(
                f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                f"{value.shape[:2]}"
            )
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")


def _check_attn_mask(attn_mask, length: int, batch: int, source: int, num_heads: int) -> None:
    """PyTorch's shape checks of a 2-D (L, S) or 3-D (N * num_heads, L, S) attn_mask."""
    if attn_mask.ndim == 2 and tuple(attn_mask.shape) != (length, source):
        raise RuntimeError(
            f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be {(length, source)}."
        )
    if attn_mask.ndim == 3 and tuple(attn_mask.shape) != (batch * num_heads, length, source):
        raise RuntimeError(
            f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
            f"{(batch * num_heads, length, source)}."
        )
    if attn_mask.ndim not in (2, 3):
        raise RuntimeError(f"attn_mask's dimension {attn_mask.ndim} is not supported")


def multi_head_attention_forward(
    query,
    key,
    value,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight,
    in_proj_bias,
    bias_k,
    bias_v,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight,
    out_proj_bias,
    training: bool = True,
    key_padding_mask=None,
    need_weights: bool = True,
    attn_mask=None,
    use_separate_proj_weight: bool = False,
    q_proj_weight=None,
    k_proj_weight=None,
    v_proj_weight=None,
    static_k=None,
    static_v=None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
):
    """Multi-head attention over (L, N, E) (or unbatched (L, E)) inputs, as one fused op.

    `is_causal` is PyTorch's hint: it needs an attn_mask, and without a key_padding_mask and
    with need_weights=False the causal mask replaces attn_mask.
    """
    if static_k is not None or static_v is not None:
        raise NotImplementedError(
            "multi_head_attention_forward: static_k/static_v are not yet supported by "
            "autograd_compat"
        )
    if (bias_k is None) != (bias_v is None):
        raise AssertionError(
            "bias_k is set but bias_v is None"
            if bias_v is None
            else "bias_v is set but bias_k is None"
        )
    batched = query.ndim == 3
    if not batched:
        query, key, value = (t.reshape(t.shape[0], 1, t.shape[1]) for t in (query, key, value))
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.reshape(1, -1)
    length, batch, embed = query.shape
    key_padding_mask = _canonical_mask(
        key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask", query.dtype
    )
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
            "module method `generate_square_subsequent_mask` to create this mask."
        )
    causal = bool(is_causal) and key_padding_mask is None and not need_weights
    if causal:
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, False)
    if embed != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed}"
        )
    if embed % num_heads:
        raise AssertionError(f"embed_dim {embed} not divisible by num_heads {num_heads}")
    _check_projection_shapes(key, value, use_separate_proj_weight)
    if attn_mask is not None:
        _check_attn_mask(attn_mask, length, batch, key.shape[0], num_heads)
    if use_separate_proj_weight:
        projections = [q_proj_weight, k_proj_weight, v_proj_weight]
    else:
        projections = [in_proj_weight]
    optional = [in_proj_bias, out_proj_bias, bias_k, bias_v, key_padding_mask, attn_mask]
    extra = [t for t in optional if t is not None]
    p = float(dropout_p) if training else 0.0
    if p > 0:  # the weights' shape: one more key for bias_k/bias_v and for the zero key
        source = key.shape[0] + (bias_k is not None) + bool(add_zero_attn)
        weights_shape = (query.shape[1], int(num_heads), query.shape[0], source)
        extra.append(dropout_source(query, p, weights_shape))
    result = apply(
        _MHA,
        query,
        key,
        value,
        *projections,
        out_proj_weight,
        *extra,
        num_heads=int(num_heads),
        separate_proj=bool(use_separate_proj_weight),
        has_in_bias=in_proj_bias is not None,
        has_out_bias=out_proj_bias is not None,
        has_bias_kv=bias_k is not None,
        zero_attn=bool(add_zero_attn),
        has_kpm=key_padding_mask is not None,
        has_mask=attn_mask is not None,
        dropout_p=p,
        need_weights=bool(need_weights),
        average=bool(average_attn_weights),
        causal=causal,
    )
    out, weights = result if need_weights else (result, None)
    if not batched:
        out = out.reshape(out.shape[0], out.shape[2])
        if weights is not None:
            weights = weights.reshape(tuple(weights.shape[1:]))
    return out, weights
