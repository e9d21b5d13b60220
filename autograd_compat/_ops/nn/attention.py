"""scaled_dot_product_attention and multi_head_attention_forward, each one fused op."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from ..._pure import dtypes as _dtypes
from ..._tape.autocast import unifies
from ..._tape.record import apply
from ._common import _HIGHEST, _key_array, _tensor, register
from .dropout import _dropout_fn

__all__ = ["multi_head_attention_forward", "scaled_dot_product_attention"]


def _attention_fn(q, k, v, *extra, scale, causal, has_mask, mask_is_bool, dropout_p):
    extra = list(extra)
    mask = extra.pop(0) if has_mask else None
    key = extra.pop(0) if dropout_p > 0 else None
    scores = jnp.matmul(q, jnp.swapaxes(k, -1, -2), precision=_HIGHEST) * scale
    if causal:
        length, source = q.shape[-2], k.shape[-2]
        allowed = jnp.tril(jnp.ones((length, source), bool))
        scores = jnp.where(allowed, scores, -jnp.inf)
    if mask is not None:
        if mask_is_bool:
            scores = jnp.where(mask, scores, -jnp.inf)
        else:
            scores = scores + mask.astype(scores.dtype)
    weights = jax.nn.softmax(scores, axis=-1)
    if key is not None:
        weights = _dropout_fn(weights, key, dropout_p)
    return jnp.matmul(weights, v, precision=_HIGHEST)


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
    if enable_gqa:
        raise NotImplementedError(
            "scaled_dot_product_attention(enable_gqa=True) is not yet supported by autograd_compat"
        )
    if not (query.dtype is key.dtype is value.dtype) and not unifies(query, key, value):
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{query.dtype} key.dtype: {key.dtype} and value.dtype: {value.dtype} instead."
        )
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else float(scale)
    extra = []
    if attn_mask is not None:
        extra.append(attn_mask)
    if dropout_p > 0:
        extra.append(_key_array())
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
    )


def _mha_fn(
    query,
    key,
    value,
    in_w,
    out_w,
    *extra,
    num_heads,
    has_in_bias,
    has_out_bias,
    kpm_kind,
    mask_kind,
    dropout_p,
    need_weights,
    average,
    causal,
):
    """Multi-head attention on (L, N, E) inputs, PyTorch's multi_head_attention_forward."""
    extra = list(extra)
    in_b = extra.pop(0) if has_in_bias else None
    out_b = extra.pop(0) if has_out_bias else None
    kpm = extra.pop(0) if kpm_kind else None
    mask = extra.pop(0) if mask_kind else None
    rng = extra.pop(0) if dropout_p > 0 else None
    length, batch, embed = query.shape
    source = key.shape[0]
    head = embed // num_heads
    w_q, w_k, w_v = jnp.split(in_w, 3)
    b_q, b_k, b_v = jnp.split(in_b, 3) if in_b is not None else (None, None, None)

    def project(x, w, b):
        y = jnp.matmul(x, w.T, precision=_HIGHEST)
        return y if b is None else y + b

    q = project(query, w_q, b_q)
    k = project(key, w_k, b_k)
    v = project(value, w_v, b_v)
    # (L, N, E) -> (N, H, L, head)
    q = q.reshape(length, batch, num_heads, head).transpose(1, 2, 0, 3)
    k = k.reshape(source, batch, num_heads, head).transpose(1, 2, 0, 3)
    v = v.reshape(source, batch, num_heads, head).transpose(1, 2, 0, 3)
    bias = jnp.zeros((batch, num_heads, length, source), q.dtype)
    if causal and mask is None:
        allowed = jnp.tril(jnp.ones((length, source), bool))
        bias = jnp.where(allowed, bias, -jnp.inf)
    if mask is not None:
        if mask.ndim == 3:
            mask = mask.reshape(batch, num_heads, length, source)
        bias = jnp.where(mask, -jnp.inf, bias) if mask_kind == "bool" else bias + mask
    if kpm is not None:
        kpm = kpm[:, None, None, :]
        bias = jnp.where(kpm, -jnp.inf, bias) if kpm_kind == "bool" else bias + kpm
    q = q * jnp.asarray(math.sqrt(1.0 / head), q.dtype)
    scores = jnp.matmul(q, jnp.swapaxes(k, -1, -2), precision=_HIGHEST) + bias
    weights = jax.nn.softmax(scores, axis=-1)
    attended = weights if rng is None else _dropout_fn(weights, rng, dropout_p)
    out = jnp.matmul(attended, v, precision=_HIGHEST)  # (N, H, L, head)
    out = out.transpose(2, 0, 1, 3).reshape(length, batch, embed)
    out = project(out, out_w, out_b)
    if not need_weights:
        return out
    if average:
        weights = jnp.mean(weights, axis=1)
    return out, weights


_MHA = register("multi_head_attention_forward", _mha_fn, node="ViewBackward0")


def _mask_kind(mask) -> str | None:
    if mask is None:
        return None
    return "bool" if mask.dtype is _dtypes.bool else "float"


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
    """Multi-head attention over (L, N, E) (or unbatched (L, E)) inputs, as one fused op."""
    if bias_k is not None or bias_v is not None or add_zero_attn or use_separate_proj_weight:
        raise NotImplementedError(
            "multi_head_attention_forward: add_bias_kv, add_zero_attn and separate projection "
            "weights (kdim/vdim) are not yet supported by autograd_compat"
        )
    if static_k is not None or static_v is not None:
        raise NotImplementedError(
            "multi_head_attention_forward: static_k/static_v are not yet supported by "
            "autograd_compat"
        )
    batched = query.ndim == 3
    if not batched:
        query, key, value = (t.reshape(t.shape[0], 1, t.shape[1]) for t in (query, key, value))
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.reshape(1, -1)
    embed = query.shape[2]
    if embed != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed}"
        )
    if embed % num_heads:
        raise AssertionError(f"embed_dim {embed} not divisible by num_heads {num_heads}")
    if is_causal and attn_mask is None:
        pass
    elif is_causal and need_weights:
        is_causal = False
    length, batch = query.shape[0], query.shape[1]
    source = key.shape[0]
    if attn_mask is not None:
        if attn_mask.ndim == 2 and tuple(attn_mask.shape) != (length, source):
            raise RuntimeError(
                f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                f"{(length, source)}."
            )
        if attn_mask.ndim == 3 and tuple(attn_mask.shape) != (batch * num_heads, length, source):
            raise RuntimeError(
                f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                f"{(batch * num_heads, length, source)}."
            )
    extra = [t for t in (in_proj_bias, out_proj_bias) if t is not None]
    if key_padding_mask is not None:
        extra.append(key_padding_mask)
    if attn_mask is not None:
        extra.append(attn_mask)
    p = float(dropout_p) if training else 0.0
    if p > 0:
        extra.append(_key_array())
    result = apply(
        _MHA,
        query,
        key,
        value,
        in_proj_weight,
        out_proj_weight,
        *extra,
        num_heads=int(num_heads),
        has_in_bias=in_proj_bias is not None,
        has_out_bias=out_proj_bias is not None,
        kpm_kind=_mask_kind(key_padding_mask),
        mask_kind=_mask_kind(attn_mask),
        dropout_p=p,
        need_weights=bool(need_weights),
        average=bool(average_attn_weights),
        causal=bool(is_causal) and attn_mask is None,
    )
    out, weights = result if need_weights else (result, None)
    if not batched:
        out = out.reshape(out.shape[0], out.shape[2])
        if weights is not None:
            weights = weights.reshape(tuple(weights.shape[1:]))
    return out, weights
