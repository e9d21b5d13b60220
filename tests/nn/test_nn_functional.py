"""nn.functional and the loss modules against PyTorch: values, gradients and error messages."""

from __future__ import annotations

import functools
import warnings

import jax
import numpy as np
import pytest

import autograd_compat as torch
import autograd_compat.nn as nn
import autograd_compat.nn.functional as F
from tests._helpers.torch_compare import check_error

pytestmark = pytest.mark.torch

ATOL, RTOL = 2e-5, 2e-4
rng = np.random.default_rng(0)
LOGITS = rng.normal(size=(4, 5)).astype(np.float32)
LOGITS_ND = rng.normal(size=(2, 5, 3)).astype(np.float32)
TARGET = np.array([0, 4, 2, 4])
TARGET_ND = np.array([[0, 1, 4], [2, 2, 3]])
PROBS = np.abs(rng.normal(size=(4, 5))).astype(np.float32)
PROBS /= PROBS.sum(1, keepdims=True)
REG_X = rng.normal(size=(4, 5)).astype(np.float32)
REG_Y = (REG_X + rng.normal(size=(4, 5)) * 1.5).astype(np.float32)
WEIGHT = np.array([0.5, 1.0, 2.0, 1.5, 0.2], np.float32)


def T(array, requires_grad=False):
    """A tensor from a numpy array, moved with device_put (torch.tensor compiles per shape)."""
    return torch.from_jax(jax.device_put(np.asarray(array)), requires_grad=requires_grad)


def _compare(fn_ours, fn_theirs, arrays, real_torch, grad_mask=None):
    """Call both with tensors made from `arrays` (floats require grad unless masked off)."""
    grad_mask = grad_mask or [a.dtype.kind == "f" for a in arrays]
    ours = [T(a, requires_grad=g) for a, g in zip(arrays, grad_mask)]
    theirs = [real_torch.tensor(a, requires_grad=g) for a, g in zip(arrays, grad_mask)]
    out_o, out_t = fn_ours(*ours), fn_theirs(*theirs)
    np.testing.assert_allclose(
        np.asarray(out_o.detach()), out_t.detach().numpy(), atol=ATOL, rtol=RTOL
    )
    if out_t.requires_grad:
        w = rng.normal(size=tuple(out_t.shape)).astype(np.float32)
        out_o.backward(T(w))
        out_t.backward(real_torch.tensor(w))
        for a, b in zip(ours, theirs):
            if b.grad is not None:
                np.testing.assert_allclose(np.asarray(a.grad), b.grad.numpy(), atol=ATOL, rtol=RTOL)
    return out_o


REDUCTIONS = ["mean", "sum", "none"]


def test_regression_losses(real_torch):
    for (name, kwargs), reduction in zip(
        [
            ("mse_loss", {}),
            ("l1_loss", {}),
            ("smooth_l1_loss", {"beta": 0.5}),
            ("smooth_l1_loss", {"beta": 0.0}),
            ("huber_loss", {"delta": 0.7}),
            ("mse_loss", {}),
            ("huber_loss", {"delta": 1.0}),
        ],
        ["mean", "sum", "none", "mean", "sum", "none", "mean"],
    ):
        _compare(
            lambda x, y, n=name, k=kwargs, r=reduction: getattr(F, n)(x, y, reduction=r, **k),
            lambda x, y, n=name, k=kwargs, r=reduction: getattr(real_torch.nn.functional, n)(
                x, y, reduction=r, **k
            ),
            [REG_X, REG_Y],
            real_torch,
        )


def test_cross_entropy_and_nll(real_torch):
    """The options of cross_entropy and nll_loss (class indices, N-d, probabilities)."""
    tf = real_torch.nn.functional
    ignored = TARGET.copy()
    ignored[1] = -100
    nd_ignored = TARGET_ND.copy()
    nd_ignored[0, 1] = 2
    cases = [  # kwargs, target, N-d target, reduction, also nll_loss
        ({}, ignored, TARGET_ND, "mean", True),
        ({"weight": WEIGHT}, ignored, None, "sum", True),
        ({"ignore_index": 4}, TARGET, TARGET_ND * 0 + 4, "mean", True),
        ({"label_smoothing": 0.2}, ignored, None, "none", False),
        ({"label_smoothing": 0.1, "weight": WEIGHT, "ignore_index": 2}, TARGET, nd_ignored,
         "mean", False),
        ({"weight": WEIGHT, "ignore_index": 2}, TARGET, None, "none", True),
    ]  # fmt: skip
    for kwargs, target, nd_target, reduction, with_nll in cases:
        weight = kwargs.pop("weight", None)
        k_o = dict(kwargs, reduction=reduction, weight=None if weight is None else T(weight))
        k_t = dict(
            kwargs,
            reduction=reduction,
            weight=None if weight is None else real_torch.tensor(weight),
        )
        pairs = [(LOGITS, target)] + ([] if nd_target is None else [(LOGITS_ND, nd_target)])
        for logits, tgt in pairs:
            _compare(
                lambda x, t, k=k_o: F.cross_entropy(x, t, **k),
                lambda x, t, k=k_t: tf.cross_entropy(x, t, **k),
                [logits, tgt],
                real_torch,
            )
        if with_nll:
            _compare(
                lambda x, t, k=k_o: F.nll_loss(F.log_softmax(x, 1), t, **k),
                lambda x, t, k=k_t: tf.nll_loss(tf.log_softmax(x, 1), t, **k),
                [LOGITS, target],
                real_torch,
            )
    for smoothing, reduction in ((0.0, "mean"), (0.3, "sum"), (0.1, "none")):
        _compare(
            lambda x, p, s=smoothing, r=reduction: F.cross_entropy(
                x, p, reduction=r, label_smoothing=s, weight=T(WEIGHT)
            ),
            lambda x, p, s=smoothing, r=reduction: tf.cross_entropy(
                x, p, reduction=r, label_smoothing=s, weight=real_torch.tensor(WEIGHT)
            ),
            [LOGITS, PROBS],
            real_torch,
        )


@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_binary_losses_and_kl(reduction, real_torch):
    tf = real_torch.nn.functional
    probs = PROBS.copy()
    probs[0, 0], probs[0, 1] = 0.0, 1.0  # clamped logs, finite gradients (PyTorch's formula)
    target = (REG_Y > 0).astype(np.float32)
    target[0, 1] = 0.0
    _compare(
        lambda p, t: F.binary_cross_entropy(p, t, reduction=reduction),
        lambda p, t: tf.binary_cross_entropy(p, t, reduction=reduction),
        [probs, target],
        real_torch,
        grad_mask=[True, False],
    )
    _compare(
        lambda p, t: F.binary_cross_entropy(p, t, weight=T(WEIGHT), reduction=reduction),
        lambda p, t: tf.binary_cross_entropy(
            p, t, weight=real_torch.tensor(WEIGHT), reduction=reduction
        ),
        [PROBS, target],
        real_torch,
    )
    variants = ({}, {"pos_weight": WEIGHT}, {"weight": WEIGHT[::-1].copy()})
    for kwargs in variants if reduction == "mean" else variants[1:2]:
        _compare(
            lambda x, t, k=kwargs: F.binary_cross_entropy_with_logits(
                x, t, reduction=reduction, **{n: T(v) for n, v in k.items()}
            ),
            lambda x, t, k=kwargs: tf.binary_cross_entropy_with_logits(
                x, t, reduction=reduction, **{n: real_torch.tensor(v) for n, v in k.items()}
            ),
            [LOGITS * 10, target],
            real_torch,
        )
    for red, log_target in ((reduction, reduction == "none"), ("batchmean", reduction == "mean")):
        if True:
            target_dist = np.log(PROBS) if log_target else PROBS
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                _compare(
                    lambda x, t, r=red, lt=log_target: F.kl_div(
                        F.log_softmax(x, 1), t, reduction=r, log_target=lt
                    ),
                    lambda x, t, r=red, lt=log_target: tf.kl_div(
                        tf.log_softmax(x, 1), t, reduction=r, log_target=lt
                    ),
                    [LOGITS, target_dist],
                    real_torch,
                )


def test_loss_modules_match_functional(real_torch):
    x, t = T(LOGITS, requires_grad=True), T(TARGET)
    for ours, theirs, args in [
        (nn.CrossEntropyLoss(label_smoothing=0.1), real_torch.nn.CrossEntropyLoss(
            label_smoothing=0.1), (LOGITS, TARGET)),
        (nn.NLLLoss(reduction="sum"), real_torch.nn.NLLLoss(reduction="sum"), (LOGITS, TARGET)),
        (nn.MSELoss(), real_torch.nn.MSELoss(), (REG_X, REG_Y)),
        (nn.L1Loss(reduction="none"), real_torch.nn.L1Loss(reduction="none"), (REG_X, REG_Y)),
        (nn.SmoothL1Loss(beta=2.0), real_torch.nn.SmoothL1Loss(beta=2.0), (REG_X, REG_Y)),
        (nn.HuberLoss(delta=0.5), real_torch.nn.HuberLoss(delta=0.5), (REG_X, REG_Y)),
        (nn.BCELoss(), real_torch.nn.BCELoss(), (PROBS, (REG_Y > 0).astype(np.float32))),
        (nn.BCEWithLogitsLoss(pos_weight=T(WEIGHT)), real_torch.nn.BCEWithLogitsLoss(
            pos_weight=real_torch.tensor(WEIGHT)), (REG_X, (REG_Y > 0).astype(np.float32))),
        (nn.KLDivLoss(reduction="batchmean"), real_torch.nn.KLDivLoss(reduction="batchmean"),
         (np.log(PROBS), PROBS)),
    ]:  # fmt: skip
        assert repr(ours) == repr(theirs)
        _compare(ours, theirs, list(args), real_torch)
    loss = nn.CrossEntropyLoss()(x, t)
    assert loss.grad_fn.name() == "NllLossBackward0"


def test_loss_errors_match_pytorch(real_torch):
    tf = real_torch.nn.functional
    x_o, x_t = T(LOGITS), real_torch.tensor(LOGITS)
    cases = [
        (lambda f, lib, x: f.cross_entropy(x, lib.tensor([0.0, 1.0, 2.0, 3.0]))),
        (lambda f, lib, x: f.cross_entropy(x, lib.tensor([0, 1]))),
        (lambda f, lib, x: f.cross_entropy(x, lib.zeros(4, 3))),
        (lambda f, lib, x: f.nll_loss(x, lib.tensor([0, 1, 7, 2]))),
        (lambda f, lib, x: f.nll_loss(x, lib.tensor([0, 1, 2, 3]).int())),
        (lambda f, lib, x: f.binary_cross_entropy(x.sigmoid(), lib.zeros(4))),
        (lambda f, lib, x: f.binary_cross_entropy(x, lib.zeros(4, 5))),
        (lambda f, lib, x: f.binary_cross_entropy_with_logits(x, lib.zeros(4))),
        (lambda f, lib, x: f.mse_loss(x, x, reduction="avg")),
        # the reduction is checked before the Tensors, then input before target (named as
        # PyTorch's kernels: nll_loss_nd, cross_entropy_loss)
        (lambda f, lib, x: f.nll_loss(x, [0, 1, 2, 3], reduction="avg")),
        (lambda f, lib, x: f.nll_loss([0.0], [0])),
        (lambda f, lib, x: f.cross_entropy(x, [0, 1, 2, 3])),
        (lambda f, lib, x: f.cross_entropy([0.0], x)),
        (lambda f, lib, x: f.kl_div(x, [0.0], reduction="batchmean")),
        (lambda f, lib, x: f.linear(x, lib.zeros(2, 3))),
        (lambda f, lib, x: f.linear(x.double(), lib.zeros(2, 5))),
        (lambda f, lib, x: f.conv2d(lib.zeros(1, 2, 2, 2), lib.zeros(3, 2, 3, 3))),
        (lambda f, lib, x: f.conv2d(lib.zeros(1, 5, 4, 4), lib.zeros(3, 2, 3, 3))),
        (lambda f, lib, x: f.embedding(lib.tensor([5]), x)),
        (lambda f, lib, x: f.group_norm(lib.zeros(2, 3, 4), 2)),
        (lambda f, lib, x: f.layer_norm(x, (4,))),
        (lambda f, lib, x: f.pad(x, (1,))),
        (lambda f, lib, x: f.max_pool2d(lib.zeros(1, 1, 2, 2), 3)),
        (lambda f, lib, x: f.batch_norm(lib.zeros(1, 3), None, None, training=True)),
    ]
    for case in cases:
        with pytest.raises(Exception) as ref:
            case(tf, real_torch, x_t)
        with pytest.raises(type(ref.value)) as mine:
            case(F, torch, x_o)
        assert str(mine.value) == str(ref.value)


def test_loss_warnings_match_pytorch(real_torch):
    with pytest.warns(UserWarning, match="Using a target size \\(torch.Size\\(\\[5\\]\\)\\)"):
        F.mse_loss(T(REG_X), T(REG_Y[0]))
    with pytest.warns(UserWarning, match="reduction: 'mean' divides the total loss"):
        F.kl_div(T(LOGITS), T(PROBS))
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        F.softmax(T(LOGITS))
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        nn.MSELoss(size_average=False)


def test_functional_ops_match_pytorch(real_torch):
    tf = real_torch.nn.functional
    img = rng.normal(size=(2, 3, 8, 8)).astype(np.float32)
    q = rng.normal(size=(2, 3, 4, 6)).astype(np.float32)
    mask = np.tril(np.ones((4, 4), bool))
    for ours, theirs, arrays in [
        (lambda x: F.pad(x, (1, 2, -1, 1), value=0.5), lambda x: tf.pad(x, (1, 2, -1, 1),
                                                                          value=0.5), [img]),
        (lambda x: F.pad(x, (2, 1, 1, 0), mode="circular"), lambda x: tf.pad(
            x, (2, 1, 1, 0), mode="circular"), [img]),
        (lambda x: F.interpolate(x, scale_factor=1.7), lambda x: tf.interpolate(
            x, scale_factor=1.7), [img]),
        (lambda x: F.interpolate(x, size=(3, 5), mode="bilinear"), lambda x: tf.interpolate(
            x, size=(3, 5), mode="bilinear"), [img]),
        (lambda x: F.interpolate(x[0], scale_factor=2, mode="linear"), lambda x: tf.interpolate(
            x[0], scale_factor=2, mode="linear"), [img]),
        (lambda x: F.normalize(x, dim=1), lambda x: tf.normalize(x, dim=1), [LOGITS]),
        (lambda a, b: F.cosine_similarity(a, b), lambda a, b: tf.cosine_similarity(a, b),
         [LOGITS, REG_X]),
        (lambda a, b: F.pairwise_distance(a, b), lambda a, b: tf.pairwise_distance(a, b),
         [LOGITS, REG_X]),
        (lambda a, b, c: F.scaled_dot_product_attention(a, b, c), lambda a, b, c:
         tf.scaled_dot_product_attention(a, b, c), [q, q * 0.5, q - 1]),
        (lambda a, b, c: F.scaled_dot_product_attention(a, b, c, is_causal=True, scale=0.3),
         lambda a, b, c: tf.scaled_dot_product_attention(a, b, c, is_causal=True, scale=0.3),
         [q, q * 0.5, q - 1]),
        (lambda a, b, c: F.scaled_dot_product_attention(a, b, c, attn_mask=T(mask)),
         lambda a, b, c: tf.scaled_dot_product_attention(a, b, c,
                                                         attn_mask=real_torch.tensor(mask)),
         [q, q * 0.5, q - 1]),
        (lambda x: F.log_softmax(x, dim=0), lambda x: tf.log_softmax(x, dim=0), [LOGITS]),
        (lambda x: F.softmax(x, -1, dtype=torch.float64), lambda x: tf.softmax(
            x, -1, dtype=real_torch.float64), [LOGITS]),
        (lambda x: F.max_pool2d(x, 2, return_indices=True)[0], lambda x: tf.max_pool2d(
            x, 2, return_indices=True)[0], [img]),
        (lambda x: F.adaptive_avg_pool1d(x[0], 3), lambda x: tf.adaptive_avg_pool1d(x[0], 3),
         [img]),
        (lambda x: F.dropout(x, 0.5, training=False), lambda x: tf.dropout(x, 0.5, False),
         [LOGITS]),
    ]:  # fmt: skip
        _compare(ours, theirs, arrays, real_torch)
    _, idx_o = F.max_pool2d(T(img), 3, 2, 1, return_indices=True)
    _, idx_t = tf.max_pool2d(real_torch.tensor(img), 3, 2, 1, return_indices=True)
    np.testing.assert_array_equal(np.asarray(idx_o), idx_t.numpy())
    hot = F.one_hot(torch.tensor([0, 2, 1]), 4)
    np.testing.assert_array_equal(
        np.asarray(hot), tf.one_hot(real_torch.tensor([0, 2, 1]), 4).numpy()
    )
    assert hot.dtype is torch.int64


def test_grouped_query_attention_matches_pytorch(real_torch):
    """enable_gqa: query heads share key and value heads (values and gradients of all
    three, causal and with a boolean mask); heads that do not divide, or differ without it,
    raise PyTorch's errors."""
    tf = real_torch.nn.functional
    q = rng.normal(size=(2, 4, 5, 8)).astype(np.float32)
    kv = rng.normal(size=(2, 2, 7, 8)).astype(np.float32)
    mask = rng.normal(size=(5, 7)) > 0
    for options in ({}, {"is_causal": True}, {"attn_mask": mask}):
        ours_options = {k: T(v) if k == "attn_mask" else v for k, v in options.items()}
        theirs_options = {
            k: real_torch.tensor(v) if k == "attn_mask" else v for k, v in options.items()
        }
        _compare(
            functools.partial(F.scaled_dot_product_attention, enable_gqa=True, **ours_options),
            functools.partial(tf.scaled_dot_product_attention, enable_gqa=True, **theirs_options),
            [q, kv, kv * 0.5],
            real_torch,
        )
    three = T(rng.normal(size=(2, 3, 5, 8)).astype(np.float32))
    with pytest.raises(RuntimeError, match="Number of heads in key and value must divide"):
        F.scaled_dot_product_attention(T(q), three, three, enable_gqa=True)
    with pytest.raises(
        RuntimeError, match=r"size of tensor a \(4\) must match the size of tensor b \(2\)"
    ):
        F.scaled_dot_product_attention(T(q), T(kv), T(kv))


def test_attention_gradients_are_those_of_pytorchs_flash_kernel(real_torch):
    """4-d attention is differentiated as PyTorch's flash kernel for CPU does it: weights
    rebuilt from the log-sum-exp, so a query masked from every key by an additive mask at
    the dtype's lowest value (Falcon's ALiBi on padding) gets weights of 1, not 1/keys;
    grouped heads too. 3-d inputs (the math kernel) keep the softmax's gradient. Forward AD
    through the flash kernel raises PyTorch's error."""
    tf = real_torch.nn.functional
    q = rng.normal(size=(2, 2, 4, 8)).astype(np.float32)
    kv = rng.normal(size=(2, 1, 4, 8)).astype(np.float32)
    bias = np.tile(np.float32([0.0, -0.25, -0.5, -0.75]), (2, 2, 4, 1))
    bias[:, :, 0] = np.finfo(np.float32).min
    bias[1, :, 1, 2:] = np.finfo(np.float32).min
    for gqa, heads in ((True, kv), (False, np.repeat(kv, 2, axis=1))):
        _compare(
            functools.partial(F.scaled_dot_product_attention, attn_mask=T(bias), enable_gqa=gqa),
            functools.partial(
                tf.scaled_dot_product_attention, attn_mask=real_torch.tensor(bias), enable_gqa=gqa
            ),
            [q, heads, heads * 0.5],
            real_torch,
        )
    _compare(
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=T(bias[0])),
        lambda q, k, v: tf.scaled_dot_product_attention(
            q, k, v, attn_mask=real_torch.tensor(bias[0])
        ),
        [q[0], q[0], q[0] * 0.5],
        real_torch,
    )

    def forward_ad(lib):
        with lib.autograd.forward_ad.dual_level():
            dual = lib.autograd.forward_ad.make_dual(lib.ones(1, 2, 4, 8), lib.ones(1, 2, 4, 8))
            lib.nn.functional.scaled_dot_product_attention(dual, dual, dual)

    check_error(forward_ad, real_torch)


def test_double_backward_through_nn_ops(real_torch):
    """create_graph through fused nn ops: the gradient penalty of a small critic."""
    x = rng.normal(size=(3, 4)).astype(np.float32)
    results = []
    for lib in (torch, real_torch):
        lib.manual_seed(0)
        layer = lib.nn.Linear(4, 3)
        with lib.no_grad():
            layer.weight.copy_(lib.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)))
            layer.bias.copy_(lib.tensor([0.1, -0.2, 0.3]))
        inp = lib.tensor(x, requires_grad=True)
        out = lib.nn.functional.softplus(lib.nn.functional.gelu(layer(inp))).sum()
        (grad,) = lib.autograd.grad(out, inp, create_graph=True)
        penalty = ((grad.norm(2, dim=1) - 1) ** 2).mean()
        penalty.backward()
        results.append((penalty.item(), np.asarray(layer.weight.grad.detach()).copy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-5)
    np.testing.assert_allclose(results[0][1], results[1][1], atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("dtype", ["bfloat16", "float32"])
def test_binary_cross_entropy_of_a_nan_input_raises_pytorchs_error(dtype, real_torch):
    """NaN is outside [0, 1]; the range check is on the host, where NumPy's bfloat16 warns on a
    NaN comparison (and this suite turns warnings into errors)."""

    def bce(t):
        kind = getattr(t, dtype)
        x = t.tensor([float("nan"), 0.5], dtype=kind)
        return t.nn.functional.binary_cross_entropy(x, t.tensor([0.0, 1.0], dtype=kind))

    assert "between 0 and 1" in str(check_error(bce, real_torch))
