"""nn layers against PyTorch: same weights in, same inputs; outputs and every gradient match.

Shapes are small and shared across cases, so each (op, shape) compiles once.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

import autograd_compat as torch
import autograd_compat.nn as nn
from tests._helpers.torch_compare import check_error

pytestmark = pytest.mark.torch

ATOL, RTOL = 2e-5, 2e-4


def _np(t):
    return np.asarray(t.detach())


def T(array, requires_grad=False):
    """A tensor from a numpy array, moved with device_put (torch.tensor compiles per shape)."""
    return torch.from_jax(jax.device_put(np.asarray(array)), requires_grad=requires_grad)


def copy_weights(ours, theirs, real_torch):
    """Load our module's state into the PyTorch module (names and shapes must agree)."""
    state = {k: real_torch.from_numpy(np.array(v)) for k, v in ours.state_dict().items()}
    theirs.load_state_dict(state)


def run_pair(ours, theirs, inputs, real_torch, grad_inputs=True):
    """Run both modules on the same inputs, backprop the same random weights of the outputs,
    and return (ours outputs, theirs outputs, our input tensors, their input tensors)."""
    copy_weights(ours, theirs, real_torch)
    ins_o, ins_t = [], []
    for x in inputs:
        floating = x.dtype.kind == "f" and grad_inputs
        ins_o.append(T(x, requires_grad=floating))
        ins_t.append(real_torch.tensor(x, requires_grad=floating))
    out_o, out_t = ours(*ins_o), theirs(*ins_t)
    flat_o, flat_t = _flatten(out_o), _flatten(out_t)
    assert len(flat_o) == len(flat_t)
    rng = np.random.default_rng(1)
    outs_o, outs_t, grads_o, grads_t = [], [], [], []
    for o, t in zip(flat_o, flat_t):
        assert tuple(o.shape) == tuple(t.shape)
        np.testing.assert_allclose(_np(o), t.detach().numpy(), atol=ATOL, rtol=RTOL)
        if t.requires_grad:
            w = rng.normal(size=tuple(t.shape)).astype(np.float32)
            outs_o.append(o)
            outs_t.append(t)
            grads_o.append(T(w))
            grads_t.append(real_torch.tensor(w))
    if not outs_t:
        return
    torch.autograd.backward(outs_o, grads_o)  # the vjp of the outputs with weights w
    real_torch.autograd.backward(outs_t, grads_t)
    for x_o, x_t in zip(ins_o, ins_t):
        if x_t.grad is not None:
            np.testing.assert_allclose(_np(x_o.grad), x_t.grad.numpy(), atol=ATOL, rtol=RTOL)
    params_t = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        if params_t[name].grad is None:
            assert p.grad is None, name
            continue
        np.testing.assert_allclose(
            _np(p.grad), params_t[name].grad.numpy(), atol=ATOL, rtol=RTOL, err_msg=name
        )


def _flatten(out) -> list:
    if isinstance(out, (tuple, list)):
        return [t for item in out if item is not None for t in _flatten(item)]
    return [out]


rng = np.random.default_rng(0)
X2 = rng.normal(size=(4, 6)).astype(np.float32)
X3 = rng.normal(size=(2, 5, 6)).astype(np.float32)
IMG = rng.normal(size=(2, 3, 8, 8)).astype(np.float32)
SEQ = rng.normal(size=(2, 3, 8)).astype(np.float32)


def _cases():
    """(name, constructor taking the nn module, inputs): built with the same arguments."""
    return [
        ("linear", lambda m: m.Linear(6, 5), [X2]),
        ("linear_3d_nobias", lambda m: m.Linear(6, 5, bias=False), [X3]),
        ("bilinear", lambda m: m.Bilinear(6, 6, 3), [X2, X2 * 0.5]),
        ("conv1d", lambda m: m.Conv1d(3, 4, 3, stride=2, padding=1), [SEQ]),
        ("conv2d", lambda m: m.Conv2d(3, 4, 3, padding=1), [IMG]),
        ("conv2d_groups", lambda m: m.Conv2d(3, 6, 3, stride=2, groups=3, bias=False), [IMG]),
        ("conv2d_same_reflect", lambda m: m.Conv2d(3, 4, 3, padding="same",
                                                   padding_mode="reflect", dilation=2), [IMG]),
        ("conv_transpose2d", lambda m: m.ConvTranspose2d(3, 4, 3, stride=2, padding=1,
                                                         output_padding=1), [IMG]),
        ("conv_transpose2d_groups", lambda m: m.ConvTranspose2d(3, 6, 2, stride=2, groups=3),
         [IMG]),
        ("maxpool2d", lambda m: m.MaxPool2d(3, 2, 1), [IMG]),
        ("maxpool2d_ceil_dilated", lambda m: m.MaxPool2d(2, 2, ceil_mode=True, dilation=2),
         [IMG]),
        ("maxpool1d", lambda m: m.MaxPool1d(2), [SEQ]),
        ("avgpool2d_ceil", lambda m: m.AvgPool2d(3, 2, 1, ceil_mode=True), [IMG]),
        ("avgpool2d_no_pad_count", lambda m: m.AvgPool2d(3, 2, 1, count_include_pad=False),
         [IMG]),
        ("avgpool1d", lambda m: m.AvgPool1d(3, 2), [SEQ]),
        ("adaptive_avg2d", lambda m: m.AdaptiveAvgPool2d((3, 5)), [IMG]),
        ("adaptive_avg2d_1", lambda m: m.AdaptiveAvgPool2d(1), [IMG]),
        ("batchnorm2d", lambda m: m.BatchNorm2d(3), [IMG]),
        ("batchnorm1d_3d", lambda m: m.BatchNorm1d(3, affine=False), [SEQ]),
        ("batchnorm1d", lambda m: m.BatchNorm1d(6, momentum=None), [X2]),
        ("layernorm", lambda m: m.LayerNorm(6), [X3]),
        ("layernorm_2d", lambda m: m.LayerNorm([5, 6], elementwise_affine=False), [X3]),
        ("groupnorm", lambda m: m.GroupNorm(3, 3), [IMG]),
        ("embedding", lambda m: m.Embedding(7, 4, padding_idx=2),
         [np.array([[0, 2, 6], [3, 2, 1]])]),
        ("flatten", lambda m: m.Flatten(), [IMG]),
        ("identity", lambda m: m.Identity(3, foo=1), [X2]),
        ("upsample_nearest", lambda m: m.Upsample(scale_factor=2), [IMG]),
        ("upsample_bilinear", lambda m: m.Upsample(size=(5, 11), mode="bilinear"), [IMG]),
        ("upsample_bilinear_ac", lambda m: m.Upsample(scale_factor=1.5, mode="bilinear",
                                                      align_corners=True), [IMG]),
        ("zeropad", lambda m: m.ZeroPad2d((1, 2, 0, 1)), [IMG]),
        ("reflectpad", lambda m: m.ReflectionPad2d(2), [IMG]),
        ("replicationpad", lambda m: m.ReplicationPad2d((1, 0, 2, 1)), [IMG]),
        ("sequential", lambda m: m.Sequential(m.Linear(6, 8), m.Tanh(), m.Linear(8, 3)), [X2]),
        ("mha", lambda m: m.MultiheadAttention(6, 2), [X3, X3 * 0.5, X3 - 1]),
        ("mha_batch_first_no_avg", lambda m: _MHA(m, batch_first=True, average=False),
         [X3, X3 * 0.5, X3 - 1]),
    ]  # fmt: skip


class _MHA:
    """A MultiheadAttention call with non-default forward arguments, for either library."""

    def __new__(cls, m, batch_first, average):
        class Wrapped(m.Module):
            def __init__(self):
                super().__init__()
                self.attn = m.MultiheadAttention(6, 3, batch_first=batch_first)

            def forward(self, q, k, v):
                return self.attn(q, k, v, average_attn_weights=average)

        return Wrapped()


CASES = _cases()


@pytest.mark.parametrize("name,make,inputs", CASES, ids=[c[0] for c in CASES])
def test_module_matches_pytorch(name, make, inputs, real_torch):
    ours, theirs = make(nn), make(real_torch.nn)
    run_pair(ours, theirs, inputs, real_torch)
    if hasattr(theirs, "running_mean") and theirs.running_mean is not None:
        np.testing.assert_allclose(_np(ours.running_mean), theirs.running_mean.numpy(), 1e-5)
        np.testing.assert_allclose(_np(ours.running_var), theirs.running_var.numpy(), 1e-5)
        assert int(ours.num_batches_tracked) == int(theirs.num_batches_tracked)


def test_activations_match_pytorch(real_torch):
    x = np.linspace(-4, 4, 24, dtype=np.float32).reshape(6, 4)
    x[0, 0] = 0.0  # the derivative at 0 follows PyTorch's convention
    for name, args in [
        ("ReLU", ()), ("LeakyReLU", (0.2,)), ("GELU", ()), ("GELU", ("tanh",)), ("SiLU", ()),
        ("Tanh", ()), ("Sigmoid", ()), ("Softmax", (1,)), ("LogSoftmax", (0,)),
        ("Softplus", (2.0, 3.0)), ("ELU", (0.5,)), ("ReLU6", ()), ("Hardtanh", (-2.0, 2.0)),
        ("Mish", ()), ("SELU", ()), ("CELU", (0.7,)), ("LogSigmoid", ()), ("Softsign", ()),
        ("Hardswish", ()), ("Hardsigmoid", ()), ("GLU", ()), ("Softmin", (1,)),
        ("Threshold", (0.5, -1.0)), ("Tanhshrink", ()), ("PReLU", ()), ("PReLU", (4, 0.1)),
        ("Hardshrink", (0.3,)), ("Softshrink", ()),
    ]:  # fmt: skip
        ours, theirs = getattr(nn, name)(*args), getattr(real_torch.nn, name)(*args)
        assert repr(ours) == repr(theirs)
        run_pair(ours, theirs, [x], real_torch)


@pytest.mark.parametrize(
    "mode,kwargs",
    [
        ("LSTM", dict(num_layers=2, batch_first=True)),
        ("GRU", dict(bidirectional=True)),
        ("RNN", dict(nonlinearity="relu", num_layers=2, bidirectional=True, bias=False)),
        ("LSTM", dict(bidirectional=True)),
    ],
)
def test_recurrent_matches_pytorch(mode, kwargs, real_torch):
    ours, theirs = getattr(nn, mode)(8, 5, **kwargs), getattr(real_torch.nn, mode)(8, 5, **kwargs)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert repr(ours) == repr(theirs)
    run_pair(ours, theirs, [SEQ], real_torch)


def test_recurrent_initial_state_and_unbatched(real_torch):
    ours, theirs = nn.LSTM(8, 5), real_torch.nn.LSTM(8, 5)
    h0 = np.full((1, 3, 5), 0.1, np.float32)

    class WithState(nn.Module):
        def __init__(self, lstm):
            super().__init__()
            self.lstm = lstm

        def forward(self, x):
            return self.lstm(x, (T(h0), T(h0 * 2)))

    class TheirsWithState(real_torch.nn.Module):
        def __init__(self, lstm):
            super().__init__()
            self.lstm = lstm

        def forward(self, x):
            return self.lstm(x, (real_torch.tensor(h0), real_torch.tensor(h0 * 2)))

    run_pair(WithState(ours), TheirsWithState(theirs), [SEQ], real_torch)
    gru_o, gru_t = nn.GRU(8, 5), real_torch.nn.GRU(8, 5)
    run_pair(gru_o, gru_t, [SEQ[0]], real_torch)  # unbatched (L, H_in)
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size"):
        ours(torch.zeros(2, 3, 7))


@pytest.mark.parametrize("cell", ["LSTMCell", "GRUCell", "RNNCell"])
def test_cells_match_pytorch(cell, real_torch):
    ours, theirs = getattr(nn, cell)(6, 4), getattr(real_torch.nn, cell)(6, 4)
    run_pair(ours, theirs, [X2], real_torch)


def test_batchnorm_eval_uses_running_stats(real_torch):
    ours, theirs = nn.BatchNorm2d(3), real_torch.nn.BatchNorm2d(3)
    for _ in range(2):
        run_pair(ours, theirs, [IMG], real_torch)
    ours.eval()
    theirs.eval()
    run_pair(ours, theirs, [IMG * 2], real_torch)
    assert int(ours.num_batches_tracked) == 2
    with pytest.raises(ValueError, match="expected 4D input \\(got 2D input\\)"):
        ours(torch.zeros(2, 3))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        nn.BatchNorm1d(3)(torch.zeros(1, 3))


BATCH_NORM_ARGS = ("running_mean", "running_var", "weight", "bias")


@pytest.mark.parametrize("first", range(4), ids=BATCH_NORM_ARGS)
def test_batch_norm_names_the_first_mis_sized_argument_as_pytorch(first, real_torch):
    """Running statistics are checked before the affine parameters (EfficientNet's error):
    the arguments from `first` on have 5 elements for 3 channels."""

    def call(lib):
        sizes = {name: lib.ones(3 if i < first else 5) for i, name in enumerate(BATCH_NORM_ARGS)}
        lib.nn.functional.batch_norm(lib.ones(2, 3), **sizes)

    check_error(call, real_torch)


def test_dropout_train_and_eval():
    x = torch.ones(2000)
    drop = nn.Dropout(0.25)
    y = drop(x)
    kept = (y != 0).float().mean().item()
    assert 0.7 < kept < 0.8
    np.testing.assert_allclose(np.unique(_np(y)), [0.0, 1 / 0.75], rtol=1e-6)
    drop.eval()
    assert drop(x) is x
    assert repr(drop) == "Dropout(p=0.25, inplace=False)"


def test_reprs_match_pytorch(real_torch):
    def build(m):
        return m.Sequential(
            m.Conv2d(1, 4, 3, stride=2, padding=1, bias=False),
            m.BatchNorm2d(4),
            m.ReLU(inplace=True),
            m.MaxPool2d(2),
            m.AvgPool2d(2),
            m.AdaptiveAvgPool2d((1, 1)),
            m.Flatten(),
            m.Dropout(0.1),
            m.Linear(4, 3),
            m.ModuleList([m.Linear(2, 2), m.Linear(2, 2), m.GELU()]),
            m.ModuleDict({"a": m.LayerNorm(3), "b": m.GroupNorm(1, 2)}),
            m.Embedding(5, 2, padding_idx=0),
            m.LSTM(2, 3, num_layers=2, batch_first=True, dropout=0.5),
            m.ConvTranspose2d(2, 3, 3, stride=2),
            m.MultiheadAttention(4, 2),
            m.CrossEntropyLoss(label_smoothing=0.1),
            m.Upsample(scale_factor=2, mode="bilinear"),
        )

    assert repr(build(nn)) == repr(build(real_torch.nn))


def test_parameter_names_order_and_state_dict_keys(real_torch):
    def build(m):
        model = m.Sequential(
            m.Conv2d(1, 2, 3),
            m.BatchNorm2d(2),
            m.Flatten(),
            m.LSTM(3, 2),
            m.MultiheadAttention(4, 2),
        )
        model.extra = m.Linear(2, 2)
        model.register_buffer("scale", (m.Linear(1, 1).weight * 0).detach() + 1)
        model.register_buffer("tmp", (m.Linear(1, 1).weight * 0).detach(), persistent=False)
        return model

    ours, theirs = build(nn), build(real_torch.nn)
    named = [(n, tuple(p.shape)) for n, p in ours.named_parameters()]
    assert named == [(n, tuple(p.shape)) for n, p in theirs.named_parameters()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    assert [n for n, _ in ours.named_modules()] == [n for n, _ in theirs.named_modules()]
    assert [type(c).__name__ for c in ours.children()] == [
        type(c).__name__ for c in theirs.children()
    ]
    assert ours.state_dict()._metadata == theirs.state_dict()._metadata


def test_default_init_follows_pytorch_distributions():
    torch.manual_seed(0)
    lin = nn.Linear(400, 300)
    bound = 1 / np.sqrt(400)
    w = _np(lin.weight)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.95 * bound
    assert abs(w.std() - bound / np.sqrt(3)) < 0.01 * bound
    conv = nn.Conv2d(4, 8, 3)
    assert np.abs(_np(conv.weight)).max() <= 1 / np.sqrt(36)
    emb = _np(nn.Embedding(300, 200).weight)
    assert abs(emb.mean()) < 0.02 and abs(emb.std() - 1) < 0.02
    lstm = nn.LSTM(10, 16)
    assert all(np.abs(_np(p)).max() <= 0.25 for p in lstm.parameters())
    bn = nn.BatchNorm1d(3)
    assert _np(bn.weight).tolist() == [1, 1, 1] and _np(bn.running_var).tolist() == [1, 1, 1]
    torch.manual_seed(0)
    again = nn.Linear(400, 300)
    np.testing.assert_array_equal(_np(again.weight), w)


def test_init_functions():
    w = nn.Parameter(torch.empty(64, 32))
    nn.init.xavier_uniform_(w)
    assert np.abs(_np(w)).max() <= np.sqrt(6 / 96)
    nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")
    assert abs(_np(w).std() - np.sqrt(2 / 64)) < 0.02
    nn.init.orthogonal_(w)
    np.testing.assert_allclose(_np(w).T @ _np(w), np.eye(32), atol=1e-5)
    nn.init.constant_(w, 0.5)
    assert set(_np(w).ravel().tolist()) == {0.5}
    version = w._version
    nn.init.zeros_(w)
    assert w._version == version + 1 and w.requires_grad and w.grad_fn is None
    nn.init.ones_(w)
    nn.init.normal_(w, 2.0, 0.1)
    assert abs(_np(w).mean() - 2.0) < 0.02
    nn.init.trunc_normal_(w, std=1.0, a=-0.5, b=0.5)
    assert np.abs(_np(w)).max() <= 0.5
    nn.init.uniform_(w, -0.1, 0.1)
    assert np.abs(_np(w)).max() <= 0.1
    nn.init.xavier_normal_(w, gain=nn.init.calculate_gain("tanh"))
    assert nn.init.calculate_gain("leaky_relu", 0.2) == pytest.approx(np.sqrt(2 / 1.04))
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        nn.init.xavier_uniform_(torch.empty(3))


def test_parameter_is_a_registered_tensor_and_a_pytree():
    import jax

    p = nn.Parameter(torch.ones(2))
    assert isinstance(p, torch.Tensor) and p.requires_grad and p.is_leaf
    assert repr(p) == "Parameter containing:\ntensor([1., 1.], requires_grad=True)"
    leaves, tree = jax.tree_util.tree_flatten(p)
    assert type(jax.tree_util.tree_unflatten(tree, leaves)) is nn.Parameter
    frozen = nn.Parameter(torch.ones(2), requires_grad=False)
    assert not frozen.requires_grad
    m = nn.Linear(2, 2)
    with pytest.raises(TypeError, match="cannot assign 'torch.FloatTensor' as parameter 'weight'"):
        m.weight = torch.ones(2, 2)
    m.weight = nn.Parameter(torch.zeros(2, 2))
    assert m.weight is list(m.parameters())[0]


def test_load_state_dict_errors_match_pytorch(real_torch):
    ours, theirs = nn.Linear(2, 3), real_torch.nn.Linear(2, 3)
    bad_o = {"weight": torch.ones(2, 3), "foo": torch.ones(1)}
    bad_t = {"weight": real_torch.ones(2, 3), "foo": real_torch.ones(1)}
    with pytest.raises(RuntimeError) as mine:
        ours.load_state_dict(bad_o)
    with pytest.raises(RuntimeError) as ref:
        theirs.load_state_dict(bad_t)
    assert str(mine.value) == str(ref.value)
    result = ours.load_state_dict({"weight": torch.ones(3, 2), "foo": torch.ones(1)}, strict=False)
    assert result.missing_keys == ["bias"] and result.unexpected_keys == ["foo"]
    np.testing.assert_array_equal(_np(ours.weight), np.ones((3, 2)))
    assert repr(ours.load_state_dict(ours.state_dict())) == "<All keys matched successfully>"


def test_load_state_dict_pre_hooks_with_and_without_the_module_match_pytorch(real_torch):
    """The private registration libraries use (transformers' Mamba) passes the module only
    when asked; the public one always does; a removed hook no longer runs."""

    def run(lib):
        model, calls = lib.nn.Linear(2, 3), []
        bare = model._register_load_state_dict_pre_hook(lambda *a: calls.append(len(a)))
        model._register_load_state_dict_pre_hook(
            lambda module, state, *rest: calls.append(module is model), with_module=True
        )
        model.register_load_state_dict_pre_hook(lambda *a: calls.append(a[0] is model))
        model.load_state_dict(model.state_dict())
        bare.remove()
        model.load_state_dict(model.state_dict())
        return calls

    assert run(torch) == run(real_torch) == [7, True, True, True, True]


def test_module_api_train_eval_hooks_apply_to():
    model = nn.Sequential(nn.Linear(3, 4), nn.Dropout(0.5), nn.Sequential(nn.BatchNorm1d(4)))
    assert model.training and all(m.training for m in model.modules())
    model.eval()
    assert not any(m.training for m in model.modules())
    model.train()
    calls = []
    pre = model[0].register_forward_pre_hook(lambda m, args: (args[0] * 0,))
    post = model[0].register_forward_hook(lambda m, args, out: calls.append(out.shape) or out + 1)
    out = model[0](torch.ones(2, 3))
    np.testing.assert_allclose(_np(out), _np(model[0].bias).reshape(1, 4) + 1 + np.zeros((2, 4)))
    assert calls == [torch.Size([2, 4])]
    pre.remove()
    post.remove()
    model[0](torch.ones(2, 3))
    assert len(calls) == 1
    seen = []
    model.apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Linear", "Dropout", "BatchNorm1d", "Sequential", "Sequential"]
    weight = model[0].weight
    model.double()
    assert model[0].weight is weight and weight.dtype is torch.float64
    assert model[2][0].num_batches_tracked.dtype is torch.int64
    model.to(torch.float32)
    assert weight.dtype is torch.float32
    model(torch.ones(2, 3)).sum().backward()
    assert weight.grad is not None
    model.zero_grad()
    assert weight.grad is None
    model.requires_grad_(False)
    assert not any(p.requires_grad for p in model.parameters())
    assert model.get_submodule("2.0") is model[2][0]
    assert model.get_parameter("0.bias") is model[0].bias
    with pytest.raises(AttributeError, match="'Sequential' object has no attribute 'nope'"):
        model.nope  # noqa: B018


def test_containers():
    seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    seq.append(nn.Tanh())
    assert len(seq) == 3 and isinstance(seq[-1], nn.Tanh) and len(seq[1:]) == 2
    del seq[0]
    assert [type(m).__name__ for m in seq] == ["ReLU", "Tanh"]
    layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    layers.append(nn.Linear(2, 1))
    assert len(list(layers.parameters())) == 8
    d = nn.ModuleDict({"a": nn.Linear(1, 1)})
    d["b"] = nn.ReLU()
    assert list(d.keys()) == ["a", "b"] and "a" in d
    plist = nn.ParameterList([nn.Parameter(torch.ones(1)) for _ in range(2)])
    assert len(list(plist.parameters())) == 2
    pdict = nn.ParameterDict({"x": nn.Parameter(torch.ones(2))})
    assert [n for n, _ in pdict.named_parameters()] == ["x"]


def test_clip_grad_and_vectors(real_torch):
    ours, theirs = nn.Linear(6, 5), real_torch.nn.Linear(6, 5)
    copy_weights(ours, theirs, real_torch)
    for lib, m in ((torch, ours), (real_torch, theirs)):
        (m(lib.tensor(X2)) ** 2).sum().backward()
    norm_o = nn.utils.clip_grad_norm_(ours.parameters(), 1.0)
    norm_t = real_torch.nn.utils.clip_grad_norm_(theirs.parameters(), 1.0)
    np.testing.assert_allclose(norm_o.item(), norm_t.item(), rtol=1e-5)
    np.testing.assert_allclose(_np(ours.weight.grad), theirs.weight.grad.numpy(), rtol=1e-5)
    nn.utils.clip_grad_value_(ours.parameters(), 0.01)
    real_torch.nn.utils.clip_grad_value_(theirs.parameters(), 0.01)
    np.testing.assert_allclose(_np(ours.bias.grad), theirs.bias.grad.numpy(), rtol=1e-5)
    inf_o = nn.utils.clip_grad_norm_(ours.parameters(), 1.0, norm_type=float("inf"))
    inf_t = real_torch.nn.utils.clip_grad_norm_(theirs.parameters(), 1.0, norm_type="inf")
    np.testing.assert_allclose(inf_o.item(), inf_t.item(), rtol=1e-6)
    vec = nn.utils.parameters_to_vector(ours.parameters())
    vec_t = real_torch.nn.utils.parameters_to_vector(theirs.parameters())
    np.testing.assert_allclose(_np(vec), vec_t.detach().numpy())
    assert vec.requires_grad
    nn.utils.vector_to_parameters(vec * 0 + 2, ours.parameters())
    assert set(_np(ours.bias).tolist()) == {2.0}
