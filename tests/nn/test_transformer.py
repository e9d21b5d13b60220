"""nn.Transformer and its parts, and MultiheadAttention's kdim/vdim/bias_kv/zero_attn, against
PyTorch: PyTorch's weights are loaded into ours (names and shapes must agree), then outputs,
input gradients and every parameter gradient must match.

One small size throughout (d_model 8, 2 heads, source 5, target 4, batch 3), so each op
compiles for few shapes.
"""

from __future__ import annotations

import copy
import warnings

import jax
import numpy as np
import pytest

import autograd_compat as torch
import autograd_compat.nn as nn
from autograd_compat._tape import fused

pytestmark = pytest.mark.torch


@pytest.fixture(autouse=True)
def _stepwise_backward(monkeypatch):
    """Every graph here runs once or twice: compiling the fused backward of a whole
    Transformer (the engine's hot-loop path, tested elsewhere) would cost ~10 s each."""
    monkeypatch.setattr(fused, "FUSE_AFTER", 10**9)


ATOL, RTOL = 5e-5, 5e-4
E, HEADS, S, T_LEN, N = 8, 2, 5, 4, 3
_rng = np.random.default_rng(0)
SRC = _rng.normal(size=(S, N, E)).astype(np.float32)
TGT = _rng.normal(size=(T_LEN, N, E)).astype(np.float32)
# key padding: True (or -inf) pads; entry 0 unpadded, the others padded at the end
SRC_PAD = np.array([[False] * 5, [False] * 3 + [True] * 2, [False] * 4 + [True]])
TGT_PAD = np.array([[False] * 4, [False] * 3 + [True], [False] * 2 + [True] * 2])
CAUSAL_T = np.triu(np.full((T_LEN, T_LEN), -np.inf, np.float32), 1)
CAUSAL_S = np.triu(np.full((S, S), -np.inf, np.float32), 1)


def _float_mask(mask):
    return np.where(mask, -np.inf, 0.0).astype(np.float32)


def _batch_first(x):
    return np.ascontiguousarray(x.transpose(1, 0, 2))


def _ours(array, requires_grad=False):
    """A tensor of ours from numpy, moved with device_put (no compiled factory per shape)."""
    return torch.from_jax(jax.device_put(np.asarray(array)), requires_grad=requires_grad)


def _convert(lib, value):
    if not isinstance(value, np.ndarray):
        return value
    requires_grad = bool(
        value.dtype == np.float32 and value.shape[-1] == E and np.isfinite(value).all()
    )
    if lib is torch:
        return _ours(value, requires_grad)
    return lib.tensor(value, requires_grad=requires_grad)


def load_from_torch(ours, theirs):
    """Copy PyTorch's state into our module through numpy (a strict load: same keys)."""
    ours.load_state_dict({k: _ours(v.detach().numpy()) for k, v in theirs.state_dict().items()})


def _call(lib, model, args, kwargs):
    args = [_convert(lib, a) for a in args]
    kwargs = {k: _convert(lib, v) for k, v in kwargs.items()}
    return model(*args, **kwargs), [a for a in args if getattr(a, "requires_grad", False)]


def _flat(out):
    return [t for t in (out if isinstance(out, tuple) else (out,)) if t is not None]


def compare(make, args, kwargs, real_torch, train=True, seed=None):
    """Build with `make(nn)` on both sides, copy PyTorch's weights into ours, run both on the
    same inputs (after `manual_seed(seed)` on both, if given: dropout draws PyTorch's numbers)
    and backpropagate the same random cotangent: all values and grads agree, and both raise
    the same warnings."""
    with warnings.catch_warnings(record=True) as warned_t:
        warnings.simplefilter("always")
        theirs = make(real_torch.nn).train(train)
        if seed is not None:
            real_torch.manual_seed(seed)
        out_t, ins_t = _call(real_torch, theirs, args, kwargs)
    with warnings.catch_warnings(record=True) as warned_o:
        warnings.simplefilter("always")
        ours = make(nn).train(train)
        load_from_torch(ours, theirs)
        if seed is not None:
            torch.manual_seed(seed)
        out_o, ins_o = _call(torch, ours, args, kwargs)
    assert [str(w.message) for w in warned_o] == [str(w.message) for w in warned_t]
    flat_o, flat_t = _flat(out_o), _flat(out_t)
    assert len(flat_o) == len(flat_t)
    rng = np.random.default_rng(1)
    cotangents = [rng.normal(size=tuple(t.shape)).astype(np.float32) for t in flat_t]
    for o, t in zip(flat_o, flat_t):
        np.testing.assert_allclose(np.asarray(o.detach()), t.detach().numpy(), RTOL, ATOL)
    torch.autograd.backward(flat_o, [_ours(c) for c in cotangents])
    real_torch.autograd.backward(flat_t, [real_torch.tensor(c) for c in cotangents])
    for x_o, x_t in zip(ins_o, ins_t):
        np.testing.assert_allclose(np.asarray(x_o.grad), x_t.grad.numpy(), RTOL, ATOL)
    grads_t = {name: p.grad for name, p in theirs.named_parameters()}
    for name, p in ours.named_parameters():
        if grads_t[name] is None:
            assert p.grad is None, name
        else:
            np.testing.assert_allclose(
                np.asarray(p.grad), grads_t[name].numpy(), RTOL, ATOL, err_msg=name
            )
    return ours, theirs


def _transformer(m, **kwargs):
    kwargs = {"dim_feedforward": 16, "dropout": 0.0, **kwargs}
    return m.Transformer(E, HEADS, num_encoder_layers=2, num_decoder_layers=1, **kwargs)


def _warn_free(fn):
    """`fn()` with PyTorch's nested-tensor warning silenced (it is tested on its own)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "enable_nested_tensor is True")
        return fn()


def test_structure_matches_pytorch(real_torch):
    for kwargs in [{}, {"norm_first": True, "bias": False, "batch_first": True}]:
        ours = _warn_free(lambda kw=kwargs: _transformer(nn, **kw))
        theirs = _warn_free(lambda kw=kwargs: _transformer(real_torch.nn, **kw))
        assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == [
            (n, tuple(p.shape)) for n, p in theirs.named_parameters()
        ]
        assert list(ours.state_dict()) == list(theirs.state_dict())
        assert [n for n, _ in ours.named_modules()] == [n for n, _ in theirs.named_modules()]
        assert repr(ours) == repr(theirs)
        assert (ours.d_model, ours.nhead, ours.batch_first) == (
            E,
            HEADS,
            kwargs.get("batch_first", False),
        )


def test_encoder_layers_are_independent_deep_copies():
    layer = nn.TransformerEncoderLayer(E, HEADS, 16, batch_first=True)
    encoder = nn.TransformerEncoder(layer, 2)
    first, second = encoder.layers
    assert first is not layer and first.linear1.weight is not second.linear1.weight
    np.testing.assert_array_equal(
        np.asarray(first.linear1.weight.detach()), np.asarray(second.linear1.weight.detach())
    )
    with torch.no_grad():
        first.linear1.weight.add_(1.0)
    assert not torch.equal(first.linear1.weight, second.linear1.weight)
    assert torch.equal(second.linear1.weight, layer.linear1.weight)
    assert encoder.num_layers == 2 and encoder.norm is None and encoder.use_nested_tensor


def test_nested_tensor_warning_matches_pytorch(real_torch):
    def build(m):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m.TransformerEncoder(m.TransformerEncoderLayer(E, HEADS, 16), 1)
            m.TransformerEncoder(
                m.TransformerEncoderLayer(E, HEADS, 16, batch_first=True, norm_first=True), 1
            )
            m.TransformerEncoder(
                m.TransformerEncoderLayer(E, 1, 16, batch_first=True), 1, enable_nested_tensor=True
            )
            quiet = m.TransformerEncoder(
                m.TransformerEncoderLayer(E, 1, 16), 1, enable_nested_tensor=False
            )
        assert not quiet.use_nested_tensor
        return [(w.category, str(w.message)) for w in caught]

    ours = build(nn)
    assert len(ours) == 3
    assert ours == build(real_torch.nn)


def test_generate_square_subsequent_mask(real_torch):
    ours = nn.Transformer.generate_square_subsequent_mask(S)
    theirs = real_torch.nn.Transformer.generate_square_subsequent_mask(S)
    np.testing.assert_array_equal(np.asarray(ours), theirs.numpy())
    assert ours.dtype is torch.float32
    half = nn.Transformer.generate_square_subsequent_mask(3, dtype=torch.float64)
    assert half.dtype is torch.float64


# (name, constructor kwargs, inputs, forward kwargs, training): with dropout 0, train and
# eval mode compute the same graph, so each case runs in one of them.
TRANSFORMER_CASES = [
    (
        "post_norm_bool_padding_train",
        {},
        [SRC, TGT],
        {"tgt_mask": CAUSAL_T, "src_key_padding_mask": SRC_PAD,
         "tgt_key_padding_mask": TGT_PAD, "memory_key_padding_mask": SRC_PAD},
        True,
    ),
    (
        "pre_norm_gelu_batch_first_float_masks_eval",
        {"norm_first": True, "activation": "gelu", "batch_first": True, "bias": False},
        [_batch_first(SRC), _batch_first(TGT)],
        {"src_mask": _float_mask(np.eye(S, dtype=bool)), "tgt_mask": CAUSAL_T,
         "memory_mask": _float_mask(np.eye(T_LEN, S, 1, dtype=bool)),
         "src_key_padding_mask": _float_mask(SRC_PAD), "tgt_is_causal": True},
        False,
    ),
]  # fmt: skip


@pytest.mark.parametrize(
    "name,kwargs,args,call,train", TRANSFORMER_CASES, ids=[c[0] for c in TRANSFORMER_CASES]
)
def test_transformer_matches_pytorch(name, kwargs, args, call, train, real_torch):
    compare(lambda m: _transformer(m, **kwargs), args, call, real_torch, train)


@pytest.mark.parametrize("need_weights", [True, False])
def test_attention_dropout_draws_pytorchs_numbers(need_weights, real_torch):
    """MultiheadAttention's dropout (on the returned weights too), seeded alike on both."""
    args = [TGT, SRC, SRC]
    call = {"need_weights": need_weights}
    compare(lambda m: m.MultiheadAttention(E, HEADS, dropout=0.5), args, call, real_torch, seed=3)


def test_transformer_dropout_draws_pytorchs_numbers(real_torch):
    """Every dropout of a training Transformer, in PyTorch's order, seeded alike on both."""
    call = {"tgt_mask": CAUSAL_T}
    make = lambda m: _transformer(m, dropout=0.25)  # noqa: E731
    compare(lambda m: _warn_free(lambda: make(m)), [SRC, TGT], call, real_torch, seed=5)


def test_encoder_callable_activation_and_3d_bool_mask(real_torch):
    mask = np.zeros((N * HEADS, S, S), bool)
    mask[:, :, -1] = True  # nobody attends to the last position
    mask[1, 2, :2] = True

    def make(m):
        layer = m.TransformerEncoderLayer(
            E, HEADS, 16, dropout=0.0, activation=m.functional.silu, layer_norm_eps=1e-3
        )
        return m.TransformerEncoder(layer, 2, norm=m.LayerNorm(E), enable_nested_tensor=False)

    compare(make, [SRC], {"mask": mask}, real_torch)
    every_key_padded = SRC_PAD.copy()
    every_key_padded[1] = True  # attention then gives zeros (no NaN), as PyTorch's SDPA
    compare(make, [SRC], {"src_key_padding_mask": every_key_padded}, real_torch)
    compare(make, [SRC], {"mask": CAUSAL_S, "is_causal": True}, real_torch)


def test_decoder_stack_and_layers(real_torch):
    def stack(m):
        layer = m.TransformerDecoderLayer(E, HEADS, 16, dropout=0.0, activation=m.GELU())
        return m.TransformerDecoder(layer, 2, norm=m.LayerNorm(E))

    compare(
        stack, [TGT, SRC], {"tgt_mask": CAUSAL_T, "memory_key_padding_mask": SRC_PAD}, real_torch
    )
    compare(
        lambda m: m.TransformerDecoderLayer(E, HEADS, 16, dropout=0.0, norm_first=True),
        [TGT[:, 1], SRC[:, 1]],  # unbatched
        {"tgt_mask": CAUSAL_T, "tgt_is_causal": True, "tgt_key_padding_mask": TGT_PAD[1]},
        real_torch,
        train=False,
    )


def test_eval_without_grad_zeroes_padding_like_nested_tensors(real_torch):
    """PyTorch's inference path: nested tensors give zeros at padded positions (left-aligned
    padding only), before the final norm; a single layer's fast path changes no numbers."""
    src = _batch_first(SRC)

    def make(m):
        layer = m.TransformerEncoderLayer(E, HEADS, 16, batch_first=True)
        return m.TransformerEncoder(layer, 2, norm=m.LayerNorm(E))

    theirs, ours = make(real_torch.nn).eval(), make(nn).eval()
    load_from_torch(ours, theirs)
    not_left_aligned = SRC_PAD.copy()
    not_left_aligned[0, 1] = True
    for pad in (SRC_PAD, not_left_aligned):
        with real_torch.no_grad(), warnings.catch_warnings():
            warnings.filterwarnings("ignore", "The PyTorch API of nested tensors")
            expected = theirs(real_torch.tensor(src), src_key_padding_mask=real_torch.tensor(pad))
            expected_layer = theirs.layers[0](
                real_torch.tensor(src), src_key_padding_mask=real_torch.tensor(pad)
            )
        with torch.no_grad():
            got = ours(_ours(src), src_key_padding_mask=_ours(pad))
            got_layer = ours.layers[0](_ours(src), src_key_padding_mask=_ours(pad))
        np.testing.assert_allclose(np.asarray(got), expected.numpy(), RTOL, ATOL)
        np.testing.assert_allclose(np.asarray(got_layer), expected_layer.numpy(), RTOL, ATOL)
    assert np.abs(np.asarray(got)[1, 3:] - np.asarray(got)[1, 0]).max() > 0.1  # not zeroed


MHA_CASES = [
    ("kdim_vdim", {"kdim": 3, "vdim": 5}, {}),
    ("kdim_vdim_no_bias_masks", {"kdim": 3, "vdim": 5, "bias": False},
     {"attn_mask": np.eye(T_LEN, S, dtype=bool), "key_padding_mask": SRC_PAD}),
    ("bias_kv_zero_attn", {"add_bias_kv": True, "add_zero_attn": True},
     {"attn_mask": _float_mask(np.eye(T_LEN, S, dtype=bool)),
      "key_padding_mask": _float_mask(SRC_PAD), "average_attn_weights": False}),
    ("bias_kv_kdim_batch_first", {"add_bias_kv": True, "kdim": 3, "vdim": 5, "batch_first": True},
     {"need_weights": False}),
]  # fmt: skip


@pytest.mark.parametrize("name,kwargs,call", MHA_CASES, ids=[c[0] for c in MHA_CASES])
def test_multihead_attention_variants(name, kwargs, call, real_torch):
    key = _rng.normal(size=(S, N, kwargs.get("kdim", E))).astype(np.float32) * 0.5
    value = _rng.normal(size=(S, N, kwargs.get("vdim", E))).astype(np.float32)
    args = [TGT, key, value]
    if kwargs.get("batch_first"):
        args = [_batch_first(a) for a in args]

    def make(m):
        return m.MultiheadAttention(E, HEADS, **kwargs)

    ours, _ = compare(make, args, call, real_torch)
    assert repr(ours) == repr(make(real_torch.nn))


def test_errors_match_pytorch(real_torch):
    from tests._helpers.torch_compare import check_error

    check_error(lambda lib: lib.nn.TransformerEncoderLayer(E, HEADS, activation="tanh"), real_torch)

    def run(lib, fn):
        model = _warn_free(lambda: _transformer(lib.nn))
        src, tgt = (lib.zeros(S, N, E), lib.zeros(T_LEN, N, E))
        return fn(lib, model, src, tgt)

    check_error(lambda lib: run(lib, lambda lib, m, s, t: m(s, t[:, :2])), real_torch)
    check_error(lambda lib: run(lib, lambda lib, m, s, t: m(s[..., :4], t)), real_torch)
    check_error(lambda lib: run(lib, lambda lib, m, s, t: m(s, t, tgt_is_causal=True)), real_torch)
    check_error(
        lambda lib: run(
            lib, lambda lib, m, s, t: m(s, t, src_mask=lib.zeros(S, S, dtype=lib.int64))
        ),
        real_torch,
    )
    check_error(
        lambda lib: run(lib, lambda lib, m, s, t: m(s, t, tgt_mask=lib.zeros(T_LEN, S))), real_torch
    )


def test_mismatched_mask_types_warn_as_pytorch(real_torch):
    def warned(lib, layer_kind):
        layer = lib.nn.TransformerEncoderLayer(E, HEADS, 16, dropout=0.0)
        model = (
            layer
            if layer_kind == "layer"
            else lib.nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
        )
        src = lib.zeros(S, N, E)
        pad = lib.zeros(N, S, dtype=lib.bool)
        mask = lib.zeros(S, S)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if layer_kind == "layer":
                model(src, src_mask=mask, src_key_padding_mask=pad)
            else:
                model(src, mask=mask, src_key_padding_mask=pad)
        return [str(w.message) for w in caught]

    for kind in ("layer", "encoder"):
        ours = warned(torch, kind)
        assert len(ours) == 1 and "is deprecated" in ours[0]
        assert ours == warned(real_torch, kind)


def test_state_dict_from_pytorch_loads_and_deepcopy_of_model():
    model = _warn_free(lambda: _transformer(nn))
    clone = copy.deepcopy(model)
    clone.load_state_dict(model.state_dict())
    out = model(_ours(SRC), _ours(TGT))
    np.testing.assert_array_equal(
        np.asarray(out.detach()), np.asarray(clone(_ours(SRC), _ours(TGT)).detach())
    )


def test_separate_projections_bias_kv_zero_attn_gradients_float64(real_torch):
    """The fused attention op's new paths in float64: PyTorch's gradients, jax.vjp of the
    traced program and central finite differences."""
    from tests._helpers.torch_compare import check_case

    rng = np.random.default_rng(3)
    shapes = [(4, 2, 4), (5, 2, 3), (5, 2, 6), (4, 4), (4, 3), (4, 6), (12,), (4, 4), (4,)]
    arrays = [rng.normal(size=s) for s in shapes + [(1, 1, 4), (1, 1, 4)]]
    padding = np.array([[False] * 5, [False] * 3 + [True] * 2])
    causal = np.triu(np.ones((4, 5), bool), 1)

    def attend(lib, q, k, v, w_q, w_k, w_v, in_b, out_w, out_b, bias_k, bias_v):
        return lib.nn.functional.multi_head_attention_forward(
            q, k, v, 4, 2, None, in_b, bias_k, bias_v, True, 0.0, out_w, out_b,
            training=False, key_padding_mask=lib.tensor(padding), attn_mask=lib.tensor(causal),
            use_separate_proj_weight=True, q_proj_weight=w_q, k_proj_weight=w_k,
            v_proj_weight=w_v, average_attn_weights=False,
        )  # fmt: skip

    check_case(attend, arrays, real_torch, jax_vjp=True, grad_rtol=1e-6, grad_atol=1e-8)


def test_sdpa_query_with_every_key_masked_float64(real_torch):
    """PyTorch's scaled_dot_product_attention: zeros and finite gradients for such a query."""
    from tests._helpers.torch_compare import check_case

    rng = np.random.default_rng(4)
    arrays = [rng.normal(size=(2, 3, 4)) for _ in range(3)]
    allowed = np.array([[True, False, True], [False, False, False], [True, True, True]])

    def attend(lib, q, k, v):
        return lib.nn.functional.scaled_dot_product_attention(q, k, v, lib.tensor(allowed))

    # names=False: in float64 PyTorch takes its math kernel (node UnsafeViewBackward0)
    check_case(attend, arrays, real_torch, names=False, jax_vjp=True, grad_rtol=1e-6)
