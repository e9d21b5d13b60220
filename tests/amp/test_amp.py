"""torch.autocast and torch.amp.GradScaler against PyTorch on CPU: which ops run in bfloat16,
which in float32, the dtypes of results and gradients, and the loss-scale sequence."""

from __future__ import annotations

import re
import threading

import numpy as np
import pytest

import autograd_compat as torch
from tests._helpers.torch_compare import assert_same, uniform, values

# (name, f(lib, x, y)) with x, y of shape (4, 4); PyTorch 2.13's CPU autocast lists decide.
_TARGET = [0, 1, 2, 3]
OPS = [
    ("matmul", lambda t, x, y: x @ y),
    ("bmm", lambda t, x, y: t.bmm(x[None], y[None])),
    ("addmm", lambda t, x, y: t.addmm(x, x, y)),
    ("baddbmm", lambda t, x, y: t.baddbmm(x[None], x[None], y[None])),
    ("linear", lambda t, x, y: t.nn.functional.linear(x, y, y[0])),
    ("conv1d", lambda t, x, y: t.nn.functional.conv1d(x[None], y[:, :, None])),
    ("prelu", lambda t, x, y: t.nn.functional.prelu(x, y[0, :1])),
    ("einsum", lambda t, x, y: t.einsum("ij,jk->ik", x, y)),
    ("tensordot", lambda t, x, y: t.tensordot(x, y, 1)),
    (
        "sdpa",
        lambda t, x, y: t.nn.functional.scaled_dot_product_attention(x[None], y[None], y[None]),
    ),
    ("mv", lambda t, x, y: t.mv(x, y[0])),
    ("softmax", lambda t, x, y: t.nn.functional.softmax(x, -1)),
    ("cross_entropy", lambda t, x, y: t.nn.functional.cross_entropy(x, t.tensor(_TARGET))),
    ("nll_loss", lambda t, x, y: t.nn.functional.nll_loss(x, t.tensor(_TARGET))),
    ("mse_loss", lambda t, x, y: t.nn.functional.mse_loss(x, y)),
    ("bce_with_logits", lambda t, x, y: t.nn.functional.binary_cross_entropy_with_logits(x, y)),
    ("layer_norm", lambda t, x, y: t.nn.functional.layer_norm(x, (4,))),
    ("sum", lambda t, x, y: x.sum()),
    ("prod", lambda t, x, y: x.prod()),
    ("trace", lambda t, x, y: t.trace(x)),
    ("pad_reflect", lambda t, x, y: t.nn.functional.pad(x[None], (1, 1), mode="reflect")),
    ("add", lambda t, x, y: x + y),
]


@pytest.fixture(scope="module")
def inputs():
    rng = np.random.default_rng(0)
    return rng.standard_normal((4, 4)), rng.standard_normal((4, 4))


@pytest.mark.parametrize("name, fn", OPS, ids=[name for name, _ in OPS])
def test_ops_run_in_pytorchs_autocast_dtype(name, fn, inputs, real_torch):
    for dtype in ("float32", "bfloat16"):
        results = []
        for lib in (torch, real_torch):
            x, y = (lib.tensor(a, dtype=getattr(lib, dtype)) for a in inputs)
            with lib.autocast("cpu"):
                results.append(fn(lib, x, y))
        ours, theirs = results
        assert str(ours.dtype) == str(theirs.dtype), f"{name} on {dtype}"
        if name not in ("sdpa", "conv1d"):
            assert_same(ours, theirs, name, tolerance=uniform(2e-2, 2e-2), names=False)


# PyTorch's nn.LSTM under CPU autocast: its oneDNN kernel in bfloat16 (where the CPU has one).
LSTM_AUTOCAST_DTYPES = ["torch.bfloat16"] * 3
ONEDNN_NO_KERNEL = "could not create a primitive descriptor"


def _lstm_dtypes(lib) -> list[str]:
    """Result dtypes of nn.LSTM under CPU autocast: its output, h and c."""
    lib.manual_seed(0)
    with lib.autocast("cpu"):
        output, (h, c) = lib.nn.LSTM(4, 4)(lib.ones(4, 1, 4))
    return [str(t.dtype) for t in (output, h, c)]


def _module_dtypes(lib) -> list[str]:
    """Result dtypes of the other recurrent and attention modules (and BatchNorm) under CPU
    autocast."""
    lib.manual_seed(0)
    x = lib.ones(4, 1, 4)
    dtypes = []
    with lib.autocast("cpu"):
        for module in (lib.nn.RNN(4, 4), lib.nn.GRU(4, 4)):
            dtypes += [t.dtype for t in module(x)]
        dtypes.append(lib.nn.RNNCell(4, 4)(x[0]).dtype)
        dtypes.append(lib.nn.GRUCell(4, 4)(x[0]).dtype)
        dtypes += [t.dtype for t in lib.nn.LSTMCell(4, 4)(x[0])]
        dtypes += [t.dtype for t in lib.nn.MultiheadAttention(4, 1)(x, x, x)]
        dtypes.append(lib.nn.BatchNorm1d(4)(x[:, 0]).dtype)
    return [str(d) for d in dtypes]


def test_modules_under_autocast_give_pytorchs_dtypes(real_torch):
    assert _module_dtypes(torch) == _module_dtypes(real_torch)


def test_lstm_under_autocast_gives_pytorchs_dtypes(real_torch):
    try:
        expected = _lstm_dtypes(real_torch)
    except RuntimeError as error:  # a CPU without bfloat16 kernels (no AVX-512): oneDNN has no
        if ONEDNN_NO_KERNEL not in str(error):  # bfloat16 LSTM, so PyTorch cannot run one
            raise
        expected = LSTM_AUTOCAST_DTYPES
    assert expected == LSTM_AUTOCAST_DTYPES
    assert _lstm_dtypes(torch) == expected


class _Net:
    """Linear -> ReLU -> Linear -> log_softmax -> nll_loss, in either library."""

    def __init__(self, lib):
        lib.manual_seed(0)
        self.first = lib.nn.Linear(4, 8)
        self.second = lib.nn.Linear(8, 3)
        self.params = [*self.first.parameters(), *self.second.parameters()]
        for p, seed in zip(self.params, range(4)):
            with lib.no_grad():
                p.copy_(lib.tensor(np.random.default_rng(seed).standard_normal(tuple(p.shape))))
        self.lib = lib

    def loss(self, x, target):
        hidden = self.lib.relu(self.first(x))
        logits = self.second(hidden)
        log_probs = self.lib.nn.functional.log_softmax(logits, -1)
        return hidden, logits, log_probs, self.lib.nn.functional.nll_loss(log_probs, target)


def test_a_training_step_under_autocast_matches_pytorch(real_torch):
    records = []
    for lib in (torch, real_torch):
        net = _Net(lib)
        x = lib.tensor(np.linspace(-1.0, 1.0, 8).reshape(2, 4), dtype=lib.float32)
        with lib.autocast("cpu"):
            outputs = net.loss(x, lib.tensor([0, 2]))
        outputs[-1].backward()
        records.append((outputs, [p.grad for p in net.params]))
    (ours, our_grads), (theirs, their_grads) = records
    assert [str(o.dtype) for o in ours] == [str(o.dtype) for o in theirs]
    assert [str(o.dtype) for o in ours] == ["torch.bfloat16"] * 3 + ["torch.float32"]
    assert [str(g.dtype) for g in our_grads] == ["torch.float32"] * 4
    assert_same(ours, theirs, "outputs", tolerance=uniform(2e-2, 2e-2), names=False)
    assert_same(our_grads, their_grads, "grads", tolerance=uniform(3e-2, 3e-2), names=False)
    assert ours[1].grad_fn.name() == "AddmmBackward0"


def test_nesting_disabling_decorator_and_state():
    x = torch.ones(2, 2)
    assert not torch.is_autocast_enabled("cpu")

    @torch.autocast("cpu", dtype=torch.float16)
    def half_product(a):
        return a @ a

    with torch.autocast("cpu"):
        assert torch.is_autocast_enabled("cpu") and not torch.is_autocast_enabled()
        assert torch.get_autocast_dtype("cpu") is torch.bfloat16
        assert (x @ x).dtype is torch.bfloat16
        with torch.autocast("cpu", enabled=False):
            assert not torch.is_autocast_enabled("cpu")
            assert (x @ x).dtype is torch.float32
        assert half_product(x).dtype is torch.float16
        assert torch.get_autocast_dtype("cpu") is torch.bfloat16
        assert (x.double() @ x.double()).dtype is torch.float64  # float64 is never cast
        seen = []
        thread = threading.Thread(target=lambda: seen.append((x @ x).dtype))
        thread.start()
        thread.join()
        assert seen == [torch.float32]  # the state is per thread
    assert not torch.is_autocast_enabled("cpu") and (x @ x).dtype is torch.float32
    with pytest.warns(FutureWarning, match=re.escape("torch.amp.autocast('cpu', args...)")):
        legacy = torch.cpu.amp.autocast()
    with legacy:
        assert (x @ x).dtype is torch.bfloat16


def test_autocast_arguments_are_checked_as_in_pytorch(real_torch):
    for lib in (torch, real_torch):
        with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
            lib.autocast(lib.device("cpu"))
        with pytest.warns(UserWarning, match="CUDA is not available"):
            assert not lib.autocast("cuda")._enabled
        with pytest.warns(UserWarning, match="target dtype is not supported") as caught:
            lib.autocast("cpu", dtype=lib.float32)
        with pytest.raises(TypeError, match="requires a callable, but got int"):
            lib.autocast("cpu")(3)
    assert str(caught[0].message).startswith("In CPU autocast")
    with pytest.raises(RuntimeError, match="unsupported autocast device_type 'mps'"):
        torch.autocast("mps")  # PyTorch supports it; this library's autocast does not


def _scaled_training(lib, **scaler_args):
    """Six SGD steps of `_Net` through a GradScaler, with an inf in the input at steps 2 and
    4: the scale, the parameters and the scaler's state after each step."""
    net = _Net(lib)
    optimizer = lib.optim.SGD(net.params, lr=0.1)
    scaler = lib.amp.GradScaler("cpu", growth_interval=2, **scaler_args)
    history = []
    for step in range(6):
        x = np.linspace(-1.0, 1.0, 8).reshape(2, 4)
        x[0, 0] = np.inf if step in (2, 4) else x[0, 0]
        optimizer.zero_grad()
        with lib.autocast("cpu"):
            loss = net.loss(lib.tensor(x, dtype=lib.float32), lib.tensor([0, 2]))[-1]
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        weights = [values(p).tolist() for p in net.params]
        history.append((scaler.get_scale(), weights, scaler.state_dict()))
    return history


def test_grad_scaler_sequence_matches_pytorch(real_torch):
    ours, theirs = _scaled_training(torch), _scaled_training(real_torch)
    scales = [65536.0, 131072.0, 65536.0, 65536.0, 32768.0, 32768.0]
    assert [h[0] for h in ours] == [h[0] for h in theirs] == scales
    assert [h[2] for h in ours] == [h[2] for h in theirs]
    for (_, our_weights, _), (_, their_weights, _) in zip(ours, theirs):
        for a, b in zip(our_weights, their_weights):
            np.testing.assert_allclose(a, b, rtol=3e-2, atol=3e-2)
    assert ours[2][1] == ours[1][1] and ours[4][1] == ours[3][1]  # skipped steps
    assert ours[3][1] != ours[2][1]
    disabled = _scaled_training(torch, enabled=False)
    real_disabled = _scaled_training(real_torch, enabled=False)
    assert [h[0] for h in disabled] == [1.0] * 6 and disabled[0][2] == {}
    assert [h[2] for h in disabled] == [h[2] for h in real_disabled]
    assert disabled[2][1] != disabled[1][1]  # not scaled: the inf step is taken


def test_grad_scaler_state_and_misuse(real_torch):
    for lib in (torch, real_torch):
        scaler = lib.amp.GradScaler("cpu", init_scale=8.0, growth_interval=3)
        model = lib.nn.Linear(2, 1)
        optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
        scaler.scale(model(lib.ones(1, 2)).sum()).backward()
        scaler.unscale_(optimizer)
        with pytest.raises(RuntimeError, match=re.escape("unscale_() has already been called")):
            scaler.unscale_(optimizer)
        scaler.step(optimizer)
        with pytest.raises(RuntimeError, match=re.escape("step() has already been called")):
            scaler.step(optimizer)
        scaler.update()
        restored = lib.amp.GradScaler("cpu")
        restored.load_state_dict(scaler.state_dict())
        assert restored.state_dict() == {
            "scale": 8.0,
            "growth_factor": 2.0,
            "backoff_factor": 0.5,
            "growth_interval": 3,
            "_growth_tracker": 1,
        }
        scaler.update(4.0)
        assert scaler.get_scale() == 4.0
        with pytest.raises(RuntimeError, match="The source state dict is empty"):
            restored.load_state_dict({})
        with pytest.warns(UserWarning, match="CUDA is not available.  Disabling."):
            assert not lib.amp.GradScaler().is_enabled()
        with pytest.warns(FutureWarning, match=re.escape("torch.amp.GradScaler('cpu', args")):
            assert lib.cpu.amp.GradScaler().get_scale() == 65536.0


def test_every_op_on_the_autocast_lists_is_registered():
    from autograd_compat._pure.op import registered_ops
    from autograd_compat._tape.autocast import _POLICIES

    for device_type, policy in _POLICIES.items():
        assert set(policy) <= set(registered_ops()), device_type
        assert set(policy.values()) == {"lower", "fp32"}
