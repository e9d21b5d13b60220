"""torch.utils.checkpoint: gradients equal real PyTorch's and the uncheckpointed ones, the
forward really runs again in the backward, dropout draws the same mask in the rerun, nothing
inside the checkpointed function keeps its activations, and the warnings and errors are
PyTorch's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograd_compat as torch
from autograd_compat._tape.hooks import Packed
from autograd_compat.utils.checkpoint import CheckpointError

RNG = np.random.default_rng(0)
W1, B1 = RNG.standard_normal((5, 4)), RNG.standard_normal(5)
W2 = RNG.standard_normal((3, 5))
X = RNG.standard_normal((2, 4))


def _block(lib):
    lin1, lin2 = lib.nn.Linear(4, 5), lib.nn.Linear(5, 3, bias=False)
    with lib.no_grad():
        lin1.weight.copy_(lib.tensor(W1, dtype=lib.float32))
        lin1.bias.copy_(lib.tensor(B1, dtype=lib.float32))
        lin2.weight.copy_(lib.tensor(W2, dtype=lib.float32))
    return lin1, lin2


def _grads(lib, mode, scale_kwarg=False):
    """Gradients of a two-layer block run plainly (mode None) or checkpointed."""
    lin1, lin2 = _block(lib)

    def fn(x, scale=2.0):
        return lin2(lib.tanh(lin1(x)) * scale)

    x = lib.tensor(X, dtype=lib.float32, requires_grad=True)
    if mode is None:
        y = fn(x)
    elif scale_kwarg:
        y = lib.utils.checkpoint.checkpoint(fn, x, use_reentrant=False, scale=2.0)
    else:
        y = lib.utils.checkpoint.checkpoint(fn, x, use_reentrant=mode)
    (y**2).sum().backward()
    return [
        t.detach().numpy() for t in (y, x.grad, lin1.weight.grad, lin1.bias.grad, lin2.weight.grad)
    ]


@pytest.mark.parametrize("mode", [True, False])
def test_gradients_match_pytorch_and_the_plain_run(mode, real_torch):
    ours, plain, theirs = _grads(torch, mode), _grads(torch, None), _grads(real_torch, mode)
    for a, b, c in zip(ours, plain, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(a, c, rtol=1e-5, atol=1e-5)


def test_keyword_arguments_pass_through_the_non_reentrant_variant():
    for a, b in zip(_grads(torch, False, scale_kwarg=True), _grads(torch, None)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("mode", [True, False])
def test_forward_reruns_in_backward_with_the_same_dropout_mask(mode):
    calls = []
    lin = torch.nn.Linear(4, 4)

    def fn(x):
        calls.append("forward")
        return torch.nn.functional.dropout(torch.tanh(lin(x)), 0.5, training=True)

    x = torch.randn(8, 4, requires_grad=True)
    torch.manual_seed(3)
    plain = fn(x)
    plain.sum().backward()
    expected = (x.grad.clone(), lin.weight.grad.clone())
    x.grad, lin.weight.grad = None, None
    calls.clear()

    torch.manual_seed(3)
    y = torch.utils.checkpoint.checkpoint(fn, x, use_reentrant=mode)
    torch.rand(100)  # the rerun must not see the RNG as it is now
    assert calls == ["forward"]
    y.sum().backward()
    assert calls == ["forward", "forward"]
    assert torch.equal(y, plain)
    assert torch.allclose(x.grad, expected[0]) and torch.allclose(lin.weight.grad, expected[1])


def test_no_activation_inside_the_function_is_kept():
    lin1, lin2 = _block(torch)
    x = torch.tensor(X, dtype=torch.float32, requires_grad=True)
    fn = lambda x: lin2(torch.tanh(lin1(x)) * 2.0)  # noqa: E731

    reentrant = torch.utils.checkpoint.checkpoint(fn, x, use_reentrant=True)
    inputs = [n for n, _ in reentrant.grad_fn.next_functions if n is not None]
    assert len(inputs) == 1 and type(inputs[0]).__name__ == "AccumulateGrad"  # x only

    y = torch.utils.checkpoint.checkpoint(fn, x, use_reentrant=False)
    stack, saved = [y.grad_fn], []
    while stack:
        node = stack.pop()
        saved.extend(getattr(node, "saved", ()) or ())
        stack.extend(n for n, _ in node.next_functions if n is not None)
    packed = [s for s in saved if type(s) is Packed]
    assert len(packed) == 6  # addmm's three, tanh's, mm's two; mul's scalar 2.0 is no activation
    assert all(s.ndim == 0 for s in saved if type(s) is not Packed)


def test_autograd_grad_and_a_second_backward_through_the_non_reentrant_variant():
    lin1, lin2 = _block(torch)
    x = torch.tensor(X, dtype=torch.float32, requires_grad=True)
    y = torch.utils.checkpoint.checkpoint(lambda t: lin2(lin1(t).relu()), x, use_reentrant=False)
    (first,) = torch.autograd.grad(y.sum(), x, retain_graph=True)
    (second,) = torch.autograd.grad(y.sum(), x)
    assert torch.equal(first, second)
    assert lin1.weight.grad is None  # grad() accumulates nothing


def test_checkpoint_sequential_matches_pytorch(real_torch):
    def run(lib):
        lin1, lin2 = _block(lib)
        model = lib.nn.Sequential(lin1, lib.nn.Tanh(), lin2, lib.nn.ReLU())
        x = lib.tensor(X, dtype=lib.float32, requires_grad=True)
        y = lib.utils.checkpoint.checkpoint_sequential(model, 2, x, use_reentrant=False)
        y.sum().backward()
        return [t.detach().numpy() for t in (y, x.grad, lin1.weight.grad)]

    for a, b in zip(run(torch), run(real_torch)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def _messages(lib):
    lin = lib.nn.Linear(2, 2)
    x = lib.ones(1, 2)
    records = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lib.utils.checkpoint.checkpoint(lin, x)  # use_reentrant unset; no input needs grad
        lib.utils.checkpoint.checkpoint_sequential([lin], 1, x)
    records.append([(w.category.__name__, str(w.message)) for w in caught])
    for call in (
        lambda: lib.utils.checkpoint.checkpoint(lin, x, use_reentrant=True, extra=1),
        lambda: lib.utils.checkpoint.checkpoint(
            lin, x, use_reentrant=True, context_fn=lambda: (None, None)
        ),
        lambda: lib.utils.checkpoint.checkpoint(
            lin, x, use_reentrant=False, determinism_check="exact"
        ),
        lambda: lib.utils.checkpoint.checkpoint_sequential([lin], 1, x, use_reentrant=True, a=1),
    ):
        try:
            call()
            records.append(None)
        except Exception as error:
            records.append((type(error).__name__, str(error)))
    return records


def test_warnings_and_errors_match_pytorch(real_torch):
    assert _messages(torch) == _messages(real_torch)


def test_a_rerun_that_saves_other_tensors_raises_checkpoint_error():
    x = torch.ones(3, requires_grad=True)
    runs = []

    def fn(t):
        runs.append(1)
        return (t * t * t).sum() if len(runs) == 1 else (t * t).sum()

    y = torch.utils.checkpoint.checkpoint(fn, x, use_reentrant=False)
    with pytest.raises(CheckpointError, match="A different number of tensors was saved"):
        y.backward()


def test_device_state_helpers_and_debug_switch():
    assert torch.utils.checkpoint.get_device_states(torch.ones(1)) == ([], [])
    torch.utils.checkpoint.set_device_states([], [])
    with pytest.raises(RuntimeError, match="one generator for every device"):
        torch.utils.checkpoint.set_device_states([0], [torch.ones(1)])
    x = torch.ones(2, requires_grad=True)
    with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):
        y = torch.utils.checkpoint.checkpoint(torch.exp, x, use_reentrant=False)
    y.sum().backward()
    assert torch.allclose(x.grad, x.detach().exp())
    with pytest.raises(AttributeError, match="torch.utils.checkpoint.GraphExecGroup is not yet"):
        getattr(torch.utils.checkpoint, "GraphExecGroup")  # noqa: B009


def test_reentrant_checkpoint_refuses_autograd_grad_as_pytorch(real_torch):
    def message(lib):
        lin = lib.nn.Linear(2, 2)
        x = lib.ones(1, 2, requires_grad=True)
        y = lib.utils.checkpoint.checkpoint(lin, x, use_reentrant=True)
        try:
            lib.autograd.grad(y.sum(), x)
        except RuntimeError as error:
            return str(error)
        return None

    assert message(torch) == message(real_torch) is not None


def test_recomputation_stops_once_every_saved_tensor_is_back():
    reached = []

    def fn(x):
        y = x.sin()  # the one tensor saved (x)
        reached.append("after")
        return y * 2.0

    for early_stop, runs in ((True, 1), (False, 2)):
        reached.clear()
        x = torch.ones(2, requires_grad=True)
        with torch.utils.checkpoint.set_checkpoint_early_stop(early_stop):
            y = torch.utils.checkpoint.checkpoint(fn, x, use_reentrant=False)
            y.sum().backward()
        assert len(reached) == runs
        assert torch.allclose(x.grad, 2 * x.detach().cos())
