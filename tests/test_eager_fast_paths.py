"""What the eager fast paths (issue 10) could break: the cached saved masks, the inline LRU
hits of compiled forwards and constants, the Python-number dunder shortcut, and the one pass
over the backward's nodes that checks them and decides between the executors."""

import numpy as np
import pytest

import autograd_compat as torch
from autograd_compat._pure import op as _op
from autograd_compat._tape import engine as _engine


def test_saved_masks_follow_which_inputs_require_grad():
    """mul saves the other input only: the cached mask differs with `requires`."""
    a = torch.tensor([2.0, 3.0], requires_grad=True)
    b = torch.tensor([5.0, 7.0])
    for x, y in ((a, b), (b, a), (a, a * 1)):
        out = x * y
        out.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [5 + 5 + 2 * 2, 7 + 7 + 2 * 3])


def test_a_view_ops_positions_are_never_freed_and_others_are():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x[1] * x[2]
    y.backward(retain_graph=False)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()
    z = x[1:] + 1  # linear: nothing saved, so a second backward works, as in PyTorch
    z.sum().backward()
    z.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 3 + 2, 2 + 2])


def test_a_modified_saved_value_fails_backward_in_both_executors():
    for _ in range(_engine.FUSE_AFTER + 1):  # stepwise first, then the fused function
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 1
        z = (y * y).sum()
        y.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            z.backward()


@pytest.mark.parametrize("where", ["tensor", "node", "leaf"])
def test_hooks_send_a_hot_graph_to_the_stepwise_executor(where):
    calls = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(_engine.FUSE_AFTER + 1):
        y = x.sin() * 2
        if where == "tensor":
            y.register_hook(lambda g: calls.append(1))
        elif where == "node":
            y.grad_fn.register_prehook(lambda g: calls.append(1))
        else:
            handle = x.register_hook(lambda g: calls.append(1))
        y.sum().backward()
        if where == "leaf":
            handle.remove()
    assert len(calls) == _engine.FUSE_AFTER + 1
    np.testing.assert_allclose(x.grad.numpy(), 3 * 2 * np.cos([1.0, 2.0]), rtol=1e-6)


def test_backward_with_inputs_runs_only_the_needed_nodes():
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    for _ in range(_engine.FUSE_AFTER + 1):
        (a * b).sum().backward(inputs=[b])
    assert a.grad is None
    np.testing.assert_allclose(b.grad.numpy(), 3 * np.array([1.0, 2.0]))


def test_dunders_with_python_numbers_and_unknown_operands():
    t = torch.tensor([1, 2])
    assert (t * 2).dtype is torch.int64
    assert (t * 2.5).dtype is torch.float32
    assert (t + True).tolist() == [2, 3]
    with pytest.raises(TypeError):
        t * "x"
    assert t.__mul__(object()) is NotImplemented


def test_a_cached_constant_is_never_changed_by_an_inplace_op():
    y = torch.tensor([1.0, 2.0]) * 3.25
    y.mul_(2)
    y.add_(1)
    np.testing.assert_allclose((torch.zeros(2) + 3.25).numpy(), [3.25, 3.25])
    value = _op.constant(3.25, np.dtype("float32"))
    assert float(value) == 3.25


def test_compiled_forwards_stay_in_lru_order():
    """A static key read again moves to the end, so the one in use outlives the others."""
    x = torch.tensor([1.0, 2.0])
    op = _op.registered_ops()["mul"]
    _ = x * 2.0
    key = next(k for k in op._compiled if dict(k)["dtype"] == np.dtype("float32"))
    _ = x * torch.tensor([1, 2])  # int64 with float32: another static key? same dtype key
    _ = torch.tensor([1, 2]) * torch.tensor([3, 4])  # the int64 key, read last
    _ = x * 2.0
    assert list(op._compiled)[-1] == key
