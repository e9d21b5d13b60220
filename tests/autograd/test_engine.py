"""backward/grad semantics: accumulation, retain/free, inputs=, allow_unused, retain_grad,
scheduling of deep and fan-out graphs, and the fused executor agreeing with the stepwise one."""

from __future__ import annotations

import re
import threading
import warnings

import numpy as np
import pytest

import autograd_compat as torch
from autograd_compat._pure import errors as _errors
from autograd_compat._tape import fused as _fused
from autograd_compat.autograd import Variable


def test_founding_example_one():
    x = Variable(torch.ones(2, 2), requires_grad=True)
    y = x + 2
    z = y * y * 3
    out = z.mean()
    out.backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 2), 4.5, np.float32))
    assert repr(x.grad) == "tensor([[4.5000, 4.5000],\n        [4.5000, 4.5000]])"
    assert out.grad_fn.name() == "MeanBackward0"


def test_founding_example_two_weights_are_a_weighted_sum_of_losses():
    x = Variable(torch.tensor([0.25, -0.5, 0.75]), requires_grad=True)
    y = x * 2
    steps = 1
    while y.data.norm() < 1000:
        y = y * 2
        steps += 1
    weights = torch.FloatTensor([0.1, 1.0, 0.0001])
    y.backward(weights)
    expected = np.array([0.1, 1.0, 0.0001], np.float32) * 2.0**steps
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6)


def test_gradients_accumulate_across_backward_calls():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    for expected in (2.0, 4.0, 6.0):
        (x * 2).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), [expected, expected])


def test_accumulation_keeps_the_grad_object():
    """PyTorch accumulates in place: a reference to x.grad sees later backward calls."""
    x = torch.tensor([1.0], requires_grad=True)
    (x * 3).sum().backward()
    held = x.grad
    (x * 3).sum().backward()
    assert x.grad is held
    np.testing.assert_array_equal(held.numpy(), [6.0])


def test_user_gradient_tensor_is_not_aliased_into_grad():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    weights = torch.tensor([1.0, 1.0])
    x.backward(weights)
    x.backward(weights)
    np.testing.assert_array_equal(weights.numpy(), [1.0, 1.0])
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])


def test_graph_is_freed_without_retain_graph():
    x = torch.ones(2, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match=re.escape(_errors.BACKWARD_TWICE)):
        y.backward()


def test_retain_graph_allows_a_second_backward():
    x = torch.ones(2, requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [4.0, 4.0])


def test_linear_ops_save_nothing_so_a_second_backward_works():
    """As in PyTorch: AddBackward/SumBackward save no tensors, nothing is freed."""
    x = torch.ones(2, requires_grad=True)
    y = (x + 2).sum()
    y.backward()
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 2.0])


def test_saved_values_are_released():
    x = torch.ones(3, requires_grad=True)
    y = x.exp()
    node = y.grad_fn
    assert node.saved is not None
    y.sum().backward()
    assert node.saved is None


def test_inputs_restricts_accumulation():
    a = torch.ones(2, requires_grad=True)
    b = torch.ones(2, requires_grad=True)
    (a * b * 3).sum().backward(inputs=[b])
    assert a.grad is None
    np.testing.assert_array_equal(b.grad.numpy(), [3.0, 3.0])


def test_inputs_may_name_a_non_leaf():
    a = torch.ones(2, requires_grad=True)
    mid = a * 2
    (mid * mid).sum().backward(inputs=[mid])
    assert a.grad is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(mid.grad.numpy(), [4.0, 4.0])


def test_grad_returns_without_touching_dot_grad():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (g,) = torch.autograd.grad((x**2).sum(), x)
    np.testing.assert_array_equal(g.numpy(), [2.0, 4.0])
    assert x.grad is None


def test_grad_with_respect_to_a_non_leaf():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    mid = x * 3
    (g,) = torch.autograd.grad((mid**2).sum(), mid)
    np.testing.assert_array_equal(g.numpy(), [6.0, 12.0])


def test_allow_unused_and_materialize_grads():
    x = torch.ones(2, requires_grad=True)
    unused = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=re.escape(_errors.UNUSED_INPUT.format(index=1))):
        torch.autograd.grad((x * 2).sum(), [x, unused], retain_graph=True)
    out = (x * 2).sum()
    gx, gu = torch.autograd.grad(out, [x, unused], allow_unused=True, retain_graph=True)
    assert gu is None
    gx, gu = torch.autograd.grad(out, [x, unused], materialize_grads=True)
    np.testing.assert_array_equal(gu.numpy(), [0.0, 0.0])


def test_retain_grad_and_non_leaf_grad_warning():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    z = x * 3
    y.retain_grad()
    assert y.retains_grad and not z.retains_grad
    ((y * z).sum()).backward()
    np.testing.assert_array_equal(y.grad.numpy(), [3.0, 3.0])
    with pytest.warns(UserWarning, match="is not a leaf Tensor is being accessed"):
        assert z.grad is None


def test_several_roots_with_weights():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    torch.autograd.backward([x * 2, (x * x).sum()], [torch.tensor([1.0, 10.0]), None])
    np.testing.assert_array_equal(x.grad.numpy(), [2.0 + 2.0, 20.0 + 4.0])


def test_legacy_keyword_names_warn_and_work():
    x = torch.tensor([1.0], requires_grad=True)
    with pytest.warns(FutureWarning, match="`variables` is deprecated"):
        torch.autograd.backward(variables=[x * 2])
    with pytest.warns(FutureWarning, match="`grad_variables` is deprecated"):
        torch.autograd.backward([x * 2], grad_variables=[torch.tensor([1.0])])
    np.testing.assert_array_equal(x.grad.numpy(), [4.0])
    with pytest.raises(RuntimeError, match=re.escape(_errors.BOTH_GRAD_SPELLINGS)):
        torch.autograd.backward([x * 2], grad_tensors=[None], grad_variables=[None])
    with pytest.raises(RuntimeError, match=re.escape(_errors.BOTH_TENSOR_SPELLINGS)):
        torch.autograd.backward([x * 2], variables=[x * 2])


def test_each_node_runs_once_after_all_consumers():
    """A diamond: y feeds two branches; y's node must see the sum of both."""
    x = torch.tensor(2.0, requires_grad=True)
    y = x * x
    out = y.sin() + y.cos() + y * 3
    out.backward()
    value = 4.0
    expected = (np.cos(value) - np.sin(value) + 3) * 2 * 2.0
    np.testing.assert_allclose(x.grad.item(), expected, rtol=1e-5)


def test_deep_graph_of_100k_ops_has_no_recursion_limit():
    x = torch.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y + 1e-5
    y.backward()
    assert x.grad.item() == 1.0


def test_fused_and_stepwise_executors_agree():
    """The same graph run thrice: stepwise, then fused once the structure is hot."""
    w = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    inp = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    grads = []
    for _ in range(3):
        w.grad = None
        out = ((inp @ w).tanh() * w).sum() + w.norm()
        out.backward()
        grads.append(w.grad.numpy())
    for g in grads[1:]:
        np.testing.assert_allclose(g, grads[0], rtol=1e-6)


def test_fused_backward_is_used_for_a_hot_graph(monkeypatch):
    calls = []
    original = _fused.fused_backward

    def spy(structure):
        calls.append(structure)
        return original(structure)

    monkeypatch.setattr(_fused, "fused_backward", spy)
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    for _ in range(4):
        (x.sin() * 7.25).sum().backward()
    assert len(calls) == 1
    np.testing.assert_allclose(x.grad.numpy(), 4 * 7.25 * np.cos([1.0, 2.0, 3.0]), rtol=1e-5)


def test_hooks_force_the_stepwise_path_and_can_replace_the_gradient():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    handle = x.register_hook(lambda g: g * 10)
    for _ in range(3):
        x.grad = None
        (x * 3).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), [30.0, 30.0])
    handle.remove()
    x.grad = None
    (x * 3).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])


def test_grad_fn_introspection():
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    assert y.grad_fn.name() == "MulBackward0"
    (first, second) = y.grad_fn.next_functions
    assert first[0].name() == "torch::autograd::AccumulateGrad" and first[1] == 0
    assert second == (None, 0)
    assert first[0].variable is x


@pytest.mark.parametrize("with_hook", [False, True], ids=["fused", "stepwise"])
def test_backward_in_threads_into_one_leaf_loses_nothing(with_hook):
    """Accumulation into `.grad` is atomic per leaf, as PyTorch's: 4 threads x 300 backwards
    of sum(w * w) add 4 * 300 * 2 to every entry (it lost terms when unlocked)."""
    w = torch.ones(8, requires_grad=True)
    if with_hook:  # a hook keeps the backward on the stepwise executor
        w.register_hook(lambda g: g)
    start = threading.Barrier(4)

    def work():
        start.wait()
        for _ in range(300):
            (w * w).sum().backward()

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    np.testing.assert_array_equal(w.grad.numpy(), np.full(8, 2400.0, np.float32))
